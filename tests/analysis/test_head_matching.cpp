// Heads matched across runs (head_matching.h) against values computed here independently:
// JSD from its definition 1/2 KL(P||M) + 1/2 KL(Q||M) in double (the code uses
// H(M) - (H(P) + H(Q)) / 2 with a float polynomial log), the assignment against brute force
// over all permutations, and linear CKA against the HSIC form with Gram matrices
// tr(KHLH) / sqrt(tr(KHKH) tr(LHLH)) (the code uses ||Y^T X||_F^2 / (||X^T X|| ||Y^T Y||)).
#include "analysis/attention/head_matching.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace attnlab::analysis;

namespace {

constexpr double kJsdTolerance = 1e-6;  // the float row kernels' accuracy (row_kernels.h)

using Stack = std::vector<float>;  // [L][H][T][T]

std::size_t at(int H, int T, int l, int h, int i, int j) {
  return ((static_cast<std::size_t>(l) * H + h) * T + i) * static_cast<std::size_t>(T) + j;
}

// Random attention: rows < n are distributions over keys < n (some exact zeros, to exercise
// 0 log 0); every padding cell holds `garbage` (NaN, large values: must never be read).
Stack randomStack(int L, int H, int T, int n, unsigned seed, float garbage = 0.0f) {
  std::mt19937 rng(seed);
  std::gamma_distribution<float> draw(0.5f, 1.0f);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  Stack s(static_cast<std::size_t>(L) * H * T * T, garbage);
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < n; ++i) {
        double sum = 0;
        for (int j = 0; j < n; ++j) {
          const float v = u(rng) < 0.2f && j != i ? 0.0f : draw(rng) + 1e-6f;
          s[at(H, T, l, h, i, j)] = v;
          sum += v;
        }
        for (int j = 0; j < n; ++j)
          s[at(H, T, l, h, i, j)] = static_cast<float>(s[at(H, T, l, h, i, j)] / sum);
      }
  return s;
}

double kl(const float* p, const std::vector<double>& m, int n) {
  double s = 0;
  for (int j = 0; j < n; ++j)
    if (p[j] > 0) s += p[j] * std::log(p[j] / m[static_cast<std::size_t>(j)]);
  return s;
}

// JSD(P, Q) = 1/2 KL(P||M) + 1/2 KL(Q||M), M = (P + Q) / 2, in nats.
double jsdNats(const float* p, const float* q, int n) {
  std::vector<double> m(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) m[static_cast<std::size_t>(j)] = 0.5 * (double(p[j]) + q[j]);
  return 0.5 * kl(p, m, n) + 0.5 * kl(q, m, n);
}

struct Sequence {
  Stack a, b;
  int T, n;
};

// [L][H][H] mean JSD in bits over every valid row of every sequence.
std::vector<double> referenceJsd(const std::vector<Sequence>& seqs, int L, int H) {
  std::vector<double> sum(static_cast<std::size_t>(L) * H * H, 0.0);
  double rows = 0;
  for (const Sequence& s : seqs) {
    rows += s.n;
    for (int l = 0; l < L; ++l)
      for (int ha = 0; ha < H; ++ha)
        for (int hb = 0; hb < H; ++hb)
          for (int i = 0; i < s.n; ++i)
            sum[(static_cast<std::size_t>(l) * H + ha) * H + hb] +=
                jsdNats(&s.a[at(H, s.T, l, ha, i, 0)], &s.b[at(H, s.T, l, hb, i, 0)], s.n);
  }
  for (double& v : sum) v /= rows * std::numbers::ln2;
  return sum;
}

std::vector<double> ours(const std::vector<Sequence>& seqs, int L, int H,
                         LogBase base = LogBase::Bits) {
  CrossHeadJsd acc(L, H, base);
  for (const Sequence& s : seqs) acc.add({s.a.data(), L, H, s.T}, {s.b.data(), L, H, s.T}, s.n);
  return acc.mean();
}

double worstDifference(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) return std::numeric_limits<double>::infinity();
  double worst = 0;
  for (std::size_t k = 0; k < x.size(); ++k) worst = std::max(worst, std::abs(x[k] - y[k]));
  return worst;
}

double totalCost(const std::vector<double>& c, int n, const std::vector<int>& match) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += c[static_cast<std::size_t>(i * n + match[i])];
  return s;
}

std::vector<int> bruteForceAssignment(const std::vector<double>& c, int n) {
  std::vector<int> perm(static_cast<std::size_t>(n)), best;
  std::iota(perm.begin(), perm.end(), 0);
  double bestCost = std::numeric_limits<double>::infinity();
  do {
    const double cost = totalCost(c, n, perm);
    if (cost < bestCost) bestCost = cost, best = perm;
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

bool isPermutation(std::vector<int> m) {
  std::sort(m.begin(), m.end());
  for (std::size_t k = 0; k < m.size(); ++k)
    if (m[k] != static_cast<int>(k)) return false;
  return true;
}

std::vector<double> randomMatrix(int rows, int cols, std::mt19937& rng, double offset = 0) {
  std::normal_distribution<double> g;
  std::vector<double> x(static_cast<std::size_t>(rows) * cols);
  for (double& v : x) v = g(rng) + offset;
  return x;
}

// [n][p] x [p][q], plain loops.
std::vector<double> multiply(const std::vector<double>& x, int n, int p,
                             const std::vector<double>& q, int cols) {
  std::vector<double> out(static_cast<std::size_t>(n) * cols, 0.0);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < p; ++k)
      for (int j = 0; j < cols; ++j)
        out[static_cast<std::size_t>(i * cols + j)] +=
            x[static_cast<std::size_t>(i * p + k)] * q[static_cast<std::size_t>(k * cols + j)];
  return out;
}

// A random p x p orthogonal matrix: Gram-Schmidt on the columns of a Gaussian one.
std::vector<double> randomOrthogonal(int p, std::mt19937& rng) {
  std::vector<double> q = randomMatrix(p, p, rng);
  auto e = [&](int i, int j) -> double& { return q[static_cast<std::size_t>(i * p + j)]; };
  for (int c = 0; c < p; ++c) {
    for (int prev = 0; prev < c; ++prev) {
      double dot = 0;
      for (int i = 0; i < p; ++i) dot += e(i, c) * e(i, prev);
      for (int i = 0; i < p; ++i) e(i, c) -= dot * e(i, prev);
    }
    double norm = 0;
    for (int i = 0; i < p; ++i) norm += e(i, c) * e(i, c);
    for (int i = 0; i < p; ++i) e(i, c) /= std::sqrt(norm);
  }
  return q;
}

// H G H for a Gram matrix G = X X^T: every row and column mean removed.
std::vector<double> centredGram(const std::vector<double>& x, int n, int p) {
  std::vector<double> g(static_cast<std::size_t>(n) * n, 0.0), rowMean(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < p; ++k)
        g[static_cast<std::size_t>(i * n + j)] +=
            x[static_cast<std::size_t>(i * p + k)] * x[static_cast<std::size_t>(j * p + k)];
  double all = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      rowMean[static_cast<std::size_t>(i)] += g[static_cast<std::size_t>(i * n + j)] / n;
    all += rowMean[static_cast<std::size_t>(i)] / n;
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      g[static_cast<std::size_t>(i * n + j)] +=
          all - rowMean[static_cast<std::size_t>(i)] - rowMean[static_cast<std::size_t>(j)];
  return g;
}

// CKA = tr(KHLH) / sqrt(tr(KHKH) tr(LHLH)), K = X X^T, L = Y Y^T, H = I - 11^T / n.
double hsicCka(const std::vector<double>& x, int n, int p, const std::vector<double>& y, int q) {
  const std::vector<double> k = centredGram(x, n, p), l = centredGram(y, n, q);
  double kl = 0, kk = 0, ll = 0;  // tr(A B) = sum_ij A_ij B_ji, both symmetric
  for (std::size_t m = 0; m < k.size(); ++m) {
    kl += k[m] * l[m];
    kk += k[m] * k[m];
    ll += l[m] * l[m];
  }
  return kl / std::sqrt(kk * ll);
}

template <class F>
QString messageOf(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return QString::fromStdString(e.what());
  }
  return QString();
}

}  // namespace

class TestHeadMatching : public QObject {
  Q_OBJECT

 private slots:
  // ---- assignment ---------------------------------------------------------------------------

  void assignmentMatchesBruteForce() {
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-5.0, 5.0);
    for (int n : {4, 5})
      for (int trial = 0; trial < 300; ++trial) {
        std::vector<double> c(static_cast<std::size_t>(n * n));
        for (double& v : c) v = u(rng);
        const std::vector<int> got = minimumCostAssignment(c, n);
        // Real-valued costs: the optimum is unique, so the assignment itself must agree.
        QCOMPARE(got, bruteForceAssignment(c, n));
      }
  }

  void assignmentWithTiesReachesTheLeastTotal() {
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> small(0, 3);
    for (int n : {4, 5})
      for (int trial = 0; trial < 300; ++trial) {
        std::vector<double> c(static_cast<std::size_t>(n * n));
        for (double& v : c) v = small(rng);
        const std::vector<int> got = minimumCostAssignment(c, n);
        QVERIFY(isPermutation(got));
        QCOMPARE(totalCost(c, n, got), totalCost(c, n, bruteForceAssignment(c, n)));
      }
  }

  void assignmentSmallCasesByHand() {
    QVERIFY(minimumCostAssignment({}, 0).empty());
    QCOMPARE(minimumCostAssignment(std::vector<double>{7.5}, 1), std::vector<int>{0});
    // Totals of the six permutations: 6, 11, 5, 9, 7, 6; only (1, 0, 2) costs 5.
    const std::vector<double> c3 = {4, 1, 3, 2, 0, 5, 3, 2, 2};
    QCOMPARE(minimumCostAssignment(c3, 3), (std::vector<int>{1, 0, 2}));
    // Greedy row by row takes column 0 for row 0 (total 101); the optimum crosses (3).
    QCOMPARE(minimumCostAssignment(std::vector<double>{1, 2, 1, 100}, 2), (std::vector<int>{1, 0}));
  }

  void assignmentRefusesBadInput() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    QVERIFY(
        messageOf([] { minimumCostAssignment(std::vector<double>(8, 1.0), 3); }).contains("3 x 3"));
    QVERIFY(messageOf([&] {
              minimumCostAssignment(std::vector<double>{0, 1, nan, 2}, 2);
            }).contains("row 1, column 0"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             minimumCostAssignment(std::vector<double>{0, inf, 1, 2}, 2));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, minimumCostAssignment({}, -1));
  }

  // ---- cross-run JSD ------------------------------------------------------------------------

  void jsdMatchesTheDefinition() {
    const int L = 2, H = 3, T = 13;
    const std::vector<Sequence> seqs = {
        {randomStack(L, H, T, T, 1), randomStack(L, H, T, T, 2), T, T}};
    const std::vector<double> bits = ours(seqs, L, H), nats = ours(seqs, L, H, LogBase::Nats);
    const std::vector<double> reference = referenceJsd(seqs, L, H);
    QVERIFY2(worstDifference(bits, reference) < kJsdTolerance,
             qPrintable(QString::number(worstDifference(bits, reference))));
    for (std::size_t k = 0; k < bits.size(); ++k) {
      QVERIFY(bits[k] > 0 && bits[k] <= 1);
      QVERIFY(std::abs(nats[k] - bits[k] * std::numbers::ln2) < 1e-12);
    }
  }

  void jsdOfIdenticalHeadsIsZero() {
    const int L = 2, H = 3, T = 10;
    const Stack a = randomStack(L, H, T, T, 9);
    const std::vector<Sequence> seqs = {{a, a, T, T}};
    const std::vector<double> r = ours(seqs, L, H);
    for (int l = 0; l < L; ++l)
      for (int h = 0; h < H; ++h) QVERIFY(r[static_cast<std::size_t>((l * H + h) * H + h)] < 1e-12);
    QVERIFY(worstDifference(r, referenceJsd(seqs, L, H)) < kJsdTolerance);
  }

  void jsdOfDisjointSupportsIsOneBit() {
    // A's head 0 spreads each row over the even keys, B's head 0 over the odd ones; A's head 1
    // and B's head 1 put everything on key 1. Disjoint supports give exactly 1 bit.
    const int H = 2, T = 9;
    Stack a(static_cast<std::size_t>(H * T * T), 0.0f), b(a.size(), 0.0f);
    for (int i = 0; i < T; ++i) {
      for (int j = 0; j < T; ++j) {
        a[at(H, T, 0, 0, i, j)] = j % 2 == 0 ? 0.2f : 0.0f;
        b[at(H, T, 0, 0, i, j)] = j % 2 == 1 ? 0.25f : 0.0f;
      }
      a[at(H, T, 0, 1, i, 1)] = b[at(H, T, 0, 1, i, 1)] = 1.0f;
    }
    const std::vector<Sequence> seqs = {{a, b, T, T}};
    const std::vector<double> bits = ours(seqs, 1, H), nats = ours(seqs, 1, H, LogBase::Nats);
    QVERIFY(std::abs(bits[0] - 1.0) < kJsdTolerance);  // even vs odd
    QVERIFY(std::abs(bits[1] - 1.0) < kJsdTolerance);  // even vs key 1
    QVERIFY(bits[3] < 1e-12);                          // key 1 vs key 1
    // Key 1 alone vs 1/4 on keys 1, 3, 5, 7, by hand: M = 5/8 on key 1, 1/8 on 3, 5, 7;
    // KL(P||M) = ln(8/5), KL(Q||M) = 1/4 ln(2/5) + 3/4 ln 2.
    const double byHand = 0.5 * (std::log(1.6) + 0.25 * std::log(0.4) + 0.75 * std::log(2.0));
    QVERIFY(std::abs(bits[2] - byHand / std::numbers::ln2) < kJsdTolerance);
    QVERIFY(std::abs(nats[0] - std::numbers::ln2) < kJsdTolerance);
  }

  void jsdIgnoresPadding() {
    const int L = 2, H = 2, T = 11, n = 6;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const Stack a = randomStack(L, H, T, n, 21, nan), b = randomStack(L, H, T, n, 22, 5.0f);
    // The same valid block with no padding at all.
    auto compact = [&](const Stack& s) {
      Stack c(static_cast<std::size_t>(L * H * n * n));
      for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h)
          for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) c[at(H, n, l, h, i, j)] = s[at(H, T, l, h, i, j)];
      return c;
    };
    const std::vector<double> padded = ours({{a, b, T, n}}, L, H);
    const std::vector<double> tight = ours({{compact(a), compact(b), n, n}}, L, H);
    QCOMPARE(padded, tight);
    QVERIFY(worstDifference(padded, referenceJsd({{compact(a), compact(b), n, n}}, L, H)) <
            kJsdTolerance);
  }

  void jsdAveragesOverRows() {
    // 3 rows and 8 rows: the mean weighs the second sequence 8/11, not 1/2.
    const int L = 1, H = 2, T = 8;
    const std::vector<Sequence> seqs = {
        {randomStack(L, H, T, 3, 31, 0.5f), randomStack(L, H, T, 3, 32, 0.5f), T, 3},
        {randomStack(L, H, T, 8, 33), randomStack(L, H, T, 8, 34), T, 8}};
    CrossHeadJsd acc(L, H);
    for (const Sequence& s : seqs) acc.add({s.a.data(), L, H, T}, {s.b.data(), L, H, T}, s.n);
    QCOMPARE(acc.rows(), std::int64_t{11});
    QCOMPARE(acc.sequences(), std::int64_t{2});
    const std::vector<double> r = acc.mean(), reference = referenceJsd(seqs, L, H);
    QVERIFY(worstDifference(r, reference) < kJsdTolerance);
    const std::vector<double> first = referenceJsd({seqs[0]}, L, H),
                              second = referenceJsd({seqs[1]}, L, H);
    for (std::size_t k = 0; k < r.size(); ++k) {
      QVERIFY(std::abs(reference[k] - (3 * first[k] + 8 * second[k]) / 11) < 1e-12);
      QVERIFY(std::abs(reference[k] - (first[k] + second[k]) / 2) > 10 * kJsdTolerance);
    }
  }

  void jsdRefusesBadInput() {
    const int L = 2, H = 3, T = 5;
    const Stack a = randomStack(L, H, T, T, 41), small = randomStack(1, H, T, T, 42);
    CrossHeadJsd acc(L, H);
    QVERIFY(messageOf([&] {
              acc.add({a.data(), L, H, T}, {small.data(), 1, H, T}, T);
            }).contains("run B 1 x 3"));
    QVERIFY(messageOf([&] {
              acc.add({a.data(), L, H, T}, {a.data(), L, 2, T}, T);
            }).contains("heads"));
    QVERIFY(messageOf([&] {
              acc.add({small.data(), 1, H, T}, {small.data(), 1, H, T}, T);
            }).contains("the accumulator 2 x 3"));
    QVERIFY(messageOf([&] {
              acc.add({a.data(), L, H, T}, {nullptr, L, H, T}, T);
            }).contains("B's attention is null"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             acc.add({a.data(), L, H, T}, {a.data(), L, H, T}, T + 1));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             acc.add({a.data(), L, H, T}, {a.data(), L, H, T}, -1));
    Stack bad = a;
    bad[at(H, T, 1, 2, 3, 1)] = std::numeric_limits<float>::infinity();
    QVERIFY(messageOf([&] {
              acc.add({a.data(), L, H, T}, {bad.data(), L, H, T}, T);
            }).contains("run B, layer 1, head 2, row 3"));
    // Nothing was added by the refused calls; the key past `valid` is never read.
    QCOMPARE(acc.rows(), std::int64_t{0});
    QVERIFY(std::isnan(acc.mean()[0]));
    acc.add({a.data(), L, H, T}, {bad.data(), L, H, T}, 1);
    QCOMPARE(acc.rows(), std::int64_t{1});
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, CrossHeadJsd(0, 3));
  }

  // ---- matching -----------------------------------------------------------------------------

  void matchingRecoversAPermutation() {
    const int L = 2, H = 5, T = 12;
    const std::vector<std::vector<int>> perm = {{2, 0, 4, 1, 3}, {4, 3, 2, 1, 0}};
    const Stack a = randomStack(L, H, T, T, 51);
    Stack b(a.size());
    for (int l = 0; l < L; ++l)  // B's head perm[l][h] is A's head h
      for (int h = 0; h < H; ++h)
        std::copy_n(&a[at(H, T, l, h, 0, 0)], T * T, &b[at(H, T, l, perm[l][h], 0, 0)]);
    const std::vector<LayerHeadMatching> m = matchHeads(ours({{a, b, T, T}}, L, H), L, H);
    QCOMPARE(m.size(), std::size_t{2});
    for (int l = 0; l < L; ++l) {
      QCOMPARE(m[l].match, perm[l]);
      QCOMPARE(m[l].nearest, perm[l]);
      for (const double d : m[l].matchedJsd) QVERIFY(d < 1e-12);
      QVERIFY(m[l].meanMatched < 1e-12);
      QVERIFY(m[l].meanIdentity > 0.05);
    }
  }

  void matchingByHand() {
    // A's head 0 is nearest B's 1, head 1 nearest B's 0; identity costs 0.5 + 0.9.
    const std::vector<double> jsd = {0.5, 0.1, 0.2, 0.9};
    const LayerHeadMatching m = matchHeads(jsd, 1, 2).at(0);
    QCOMPARE(m.match, (std::vector<int>{1, 0}));
    QCOMPARE(m.matchedJsd, (std::vector<double>{0.1, 0.2}));
    QCOMPARE(m.identityJsd, (std::vector<double>{0.5, 0.9}));
    QCOMPARE(m.nearest, (std::vector<int>{1, 0}));
    QVERIFY(std::abs(m.meanMatched - 0.15) < 1e-15);
    QVERIFY(std::abs(m.meanIdentity - 0.7) < 1e-15);
    QVERIFY(messageOf([] { matchHeads(std::vector<double>(7, 0.0), 2, 2); }).contains("2 x 2 x 2"));
    QVERIFY(messageOf([] {
              matchHeads(std::vector<double>{0, 0, 0, 0, 0, NAN, 0, 0}, 2, 2);
            }).contains("layer 1"));
  }

  // ---- linear CKA ---------------------------------------------------------------------------

  void ckaIsInvariantToRotationScaleAndShift() {
    std::mt19937 rng(61);
    const int n = 50, p = 6;
    const std::vector<double> x = randomMatrix(n, p, rng, 3.0);
    const std::vector<double> rotated = multiply(x, n, p, randomOrthogonal(p, rng), p);
    std::vector<double> scaled = x, shifted = x;
    for (double& v : scaled) v *= 3.7;
    for (std::size_t k = 0; k < shifted.size(); ++k) shifted[k] += 100.0 + 10.0 * (k % p);
    QVERIFY(std::abs(linearCka(x, n, p, rotated, p) - 1.0) < 1e-12);
    QVERIFY(std::abs(linearCka(x, n, p, scaled, p) - 1.0) < 1e-12);
    QVERIFY(std::abs(linearCka(x, n, p, shifted, p) - 1.0) < 1e-12);
    QVERIFY(std::abs(linearCka(rotated, n, p, shifted, p) - 1.0) < 1e-12);
  }

  void ckaMatchesTheHsicForm_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("q");
    QTest::newRow("more examples than features") << 9 << 4 << 6;
    QTest::newRow("more features than examples") << 5 << 8 << 3;
    QTest::newRow("40 x 17 against 40 x 23") << 40 << 17 << 23;
  }
  void ckaMatchesTheHsicForm() {
    QFETCH(int, n);
    QFETCH(int, p);
    QFETCH(int, q);
    std::mt19937 rng(70u + static_cast<unsigned>(n));
    const std::vector<double> x = randomMatrix(n, p, rng, 1.0);
    std::vector<double> y = randomMatrix(n, q, rng, -2.0);
    for (int i = 0; i < n; ++i)  // some shared structure, so the value is not near 0
      y[static_cast<std::size_t>(i * q)] += 2.0 * x[static_cast<std::size_t>(i * p)];
    const double got = linearCka(x, n, p, y, q), reference = hsicCka(x, n, p, y, q);
    QVERIFY2(std::abs(got - reference) < 1e-12,
             qPrintable(QString("%1 vs %2").arg(got).arg(reference)));
    QVERIFY(got > 0.0 && got < 1.0);
  }

  void ckaOfOneFeatureIsTheSquaredCorrelation() {
    // x = (1, 2, 3), y = (1, 3, 2): centred (-1, 0, 1) and (-1, 1, 0), r = 1/2, CKA = r^2.
    QVERIFY(
        std::abs(linearCka(std::vector<double>{1, 2, 3}, 3, 1, std::vector<double>{1, 3, 2}, 1) -
                 0.25) < 1e-15);
  }

  void ckaMatrixAgreesWithPairs() {
    std::mt19937 rng(81);
    const int n = 30, wa = 5, wb = 4;
    std::vector<std::vector<float>> a(3), b(2);
    std::normal_distribution<float> g;
    for (auto& layer : a) {
      layer.resize(static_cast<std::size_t>(n * wa));
      for (float& v : layer) v = g(rng);
    }
    for (auto& layer : b) {
      layer.resize(static_cast<std::size_t>(n * wb));
      for (std::size_t k = 0; k < layer.size(); ++k) layer[k] = a[1][k / wb * wa + k % wb] + g(rng);
    }
    const std::vector<std::span<const float>> sa(a.begin(), a.end()), sb(b.begin(), b.end());
    const std::vector<double> m = linearCkaMatrix(sa, wa, sb, wb, n);
    QCOMPARE(m.size(), std::size_t{6});
    for (std::size_t i = 0; i < a.size(); ++i)
      for (std::size_t j = 0; j < b.size(); ++j)
        QVERIFY(std::abs(m[i * 2 + j] - linearCka(a[i], n, wa, b[j], wb)) < 1e-12);
    QVERIFY(m[2] > m[0] && m[2] > m[4]);  // B's layers are built from A's layer 1
    const std::vector<double> self = linearCkaMatrix(sa, wa, sa, wa, n);
    for (std::size_t i = 0; i < a.size(); ++i) QVERIFY(std::abs(self[i * 3 + i] - 1.0) < 1e-12);
  }

  void ckaRefusesBadInput() {
    const std::vector<double> x = {1, 2, 3, 4, 5, 7}, constant = {2, 5, 2, 5, 2, 5};
    QVERIFY(messageOf([&] {
              linearCka(std::span(x).first(2), 1, 2, std::span(x).first(2), 2);
            }).contains("at least 2"));
    QVERIFY(messageOf([&] { linearCka(x, 3, 2, std::span(x).first(4), 2); }).contains("Y holds 4"));
    QVERIFY(messageOf([&] { linearCka(x, 3, 2, constant, 2); }).contains("CKA is undefined"));
    QVERIFY(messageOf([&] {
              linearCka(x, 3, 2, std::vector<double>{1, 2, 3, NAN, 5, 6}, 2);
            }).contains("row 1, column 1"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, linearCka(x, 6, 0, x, 1));
    const std::vector<float> f = {1, 2, 3, 4, 5, 7}, flat = {1, 1, 1, 1, 1, 1};
    const std::vector<std::span<const float>> good = {f}, withFlat = {f, flat};
    QVERIFY(messageOf([&] {
              linearCkaMatrix(good, 2, withFlat, 2, 3);
            }).contains("layer 1 of B has zero variance"));
    QVERIFY(messageOf([&] { linearCkaMatrix({}, 2, good, 2, 3); }).contains("run A has no layers"));
  }
};

QTEST_APPLESS_MAIN(TestHeadMatching)
#include "test_head_matching.moc"
