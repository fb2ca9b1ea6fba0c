#include "app/gui/panels/health/health_alarms.h"

#include <algorithm>
#include <cmath>

namespace attnlab::app {

namespace {

using Kind = HealthAlarm::Kind;

float at(const std::vector<std::vector<float>>& rows, std::size_t r, std::size_t i) {
  return r < rows.size() && i < rows[r].size() ? rows[r][i] : std::nanf("");
}

QString number(double v) {
  return QString::number(v, 'g', 3);
}

void findEntropyCollapses(const core::HealthHistory& h, double nats,
                          std::vector<HealthAlarm>& out) {
  const core::HeadSeries* entropy = h.head("entropy_min");
  const core::HeadSeries* logits = h.head("logit_max");
  if (entropy == nullptr || logits == nullptr) return;
  for (int l = 0; l < h.layers; ++l)
    for (int head = 0; head < h.heads; ++head) {
      const auto i = static_cast<std::size_t>(l * h.heads + head);
      bool told = false;
      for (std::size_t r = 1; r < h.steps.size(); ++r) {
        const float e = at(entropy->rows, r, i);
        const float s = at(logits->rows, r, i), before = at(logits->rows, r - 1, i);
        if (!(e < nats)) told = false;
        if (told || !(e < nats) || !(s > before)) continue;
        told = true;
        HealthAlarm a{Kind::EntropyCollapse, static_cast<int>(r), h.steps[r], l, head, -1, {}};
        a.text = QStringLiteral(
                     "entropy collapse: layer %1 head %2, minimum entropy %3 nats < %4 "
                     "while S_max rose %5 -> %6")
                     .arg(l)
                     .arg(head)
                     .arg(number(e), number(nats), number(before), number(s));
        out.push_back(a);
      }
    }
}

/// The head of `layer` with the largest top key mass at row `r` (0 when none is finite).
int topHeadOfLayer(const core::HealthHistory& h, std::size_t r, int layer) {
  const core::HeadSeries* top = h.head("top_key_mass");
  int best = 0;
  float bestMass = -1;
  for (int head = 0; top != nullptr && head < h.heads; ++head) {
    const float m = at(top->rows, r, static_cast<std::size_t>(layer * h.heads + head));
    if (m > bestMass) bestMass = m, best = head;
  }
  return best;
}

void findMassiveActivations(const core::HealthHistory& h, double ratio,
                            std::vector<HealthAlarm>& out) {
  for (int l = 0; l < h.layers; ++l) {
    bool told = false;
    for (std::size_t r = 0; r < h.steps.size(); ++r) {
      const float v = at(h.massiveRatio, r, static_cast<std::size_t>(l));
      if (!(v > ratio)) {
        told = false;
        continue;
      }
      if (told) continue;
      told = true;
      HealthAlarm a{Kind::MassiveActivation,
                    static_cast<int>(r),
                    h.steps[r],
                    l,
                    topHeadOfLayer(h, r, l),
                    -1,
                    {}};
      const auto top = static_cast<std::size_t>(l * 3);
      a.text = QStringLiteral(
                   "massive activation: layer %1, top |h| / median |h| = %2 > %3 "
                   "(|h| %4 at token %5, dimension %6)")
                   .arg(l)
                   .arg(number(v), number(ratio), number(at(h.massiveValue, r, top)))
                   .arg(static_cast<qint64>(at(h.massiveToken, r, top)))
                   .arg(static_cast<qint64>(at(h.massiveDimension, r, top)));
      out.push_back(a);
    }
  }
}

/// The (layer, head) with the largest mass on class `c` at row `r`.
std::pair<int, int> topHeadOfClass(const core::HealthHistory& h, std::size_t r, int c) {
  std::pair<int, int> best{0, 0};
  float bestMass = -1;
  for (int l = 0; l < h.layers; ++l)
    for (int head = 0; head < h.heads; ++head) {
      const float m =
          at(h.classMass, r, static_cast<std::size_t>((l * h.heads + head) * h.classes + c));
      if (m > bestMass) bestMass = m, best = {l, head};
    }
  return best;
}

void findSinkJumps(const core::HealthHistory& h, double jump, std::vector<HealthAlarm>& out) {
  const auto& names = core::healthClassNames();
  for (int c = 0; c < h.classes && c < static_cast<int>(names.size()); ++c)
    for (std::size_t r = 1; r < h.steps.size(); ++r) {
      const float before = at(h.sinkRate, r - 1, c), now = at(h.sinkRate, r, c);
      if (!(now - before > jump)) continue;
      const auto [layer, head] = topHeadOfClass(h, r, c);
      HealthAlarm a{Kind::SinkRateJump, static_cast<int>(r), h.steps[r], layer, head, c, {}};
      a.text = QStringLiteral(
                   "sink-rate jump: class %1 %2 -> %3 (+%4 > %5) since step %6; "
                   "top head layer %7 head %8")
                   .arg(QString::fromStdString(names[c]), number(before), number(now),
                        number(now - before), number(jump))
                   .arg(h.steps[r - 1])
                   .arg(layer)
                   .arg(head);
      out.push_back(a);
    }
}

}  // namespace

QString HealthAlarm::key() const {
  return QStringLiteral("%1:%2:%3:%4:%5")
      .arg(static_cast<int>(kind))
      .arg(step)
      .arg(kind == Kind::SinkRateJump ? -1 : layer)
      .arg(kind == Kind::EntropyCollapse ? head : -1)
      .arg(sinkClass);
}

QString healthAlarmName(HealthAlarm::Kind kind) {
  switch (kind) {
    case Kind::EntropyCollapse:
      return QStringLiteral("entropy collapse");
    case Kind::MassiveActivation:
      return QStringLiteral("massive activation");
    case Kind::SinkRateJump:
      return QStringLiteral("sink-rate jump");
  }
  return {};
}

std::vector<HealthAlarm> findHealthAlarms(const core::HealthHistory& history,
                                          const HealthAlarmSettings& settings) {
  std::vector<HealthAlarm> out;
  findEntropyCollapses(history, settings.entropyCollapseNats, out);
  findMassiveActivations(history, settings.massiveRatio, out);
  findSinkJumps(history, settings.sinkRateJump, out);
  std::stable_sort(out.begin(), out.end(),
                   [](const HealthAlarm& a, const HealthAlarm& b) { return a.row < b.row; });
  return out;
}

}  // namespace attnlab::app
