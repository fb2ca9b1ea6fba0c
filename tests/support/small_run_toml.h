#pragma once

// The configuration file the command-line tests train with: a 2-layer, 2-head encoder of
// hidden size 32 on a text corpus with a 50-piece tokenizer, `steps` steps on one thread,
// evaluating and checkpointing every `every` steps. No raw string literals: moc reads the
// test files that include this.

#include <QString>
#include <QStringList>

namespace attnlab::tests {

inline QByteArray smallRunToml(const QString& name, const QString& corpusPath, int steps,
                               int every) {
  const QStringList lines = {"[run]",
                             "name = \"" + name + "\"",
                             "[corpus]",
                             "source = \"text\"",
                             "paths = [\"" + corpusPath + "\"]",
                             "[tokenizer]",
                             "vocab_size = 50",
                             "[data]",
                             "sequence_length = 24",
                             "validation_fraction = 0.1",
                             "[model]",
                             "layers = 2",
                             "hidden_size = 32",
                             "heads = 2",
                             "ffn_size = 64",
                             "max_positions = 32",
                             "[schedule]",
                             "steps = " + QString::number(steps),
                             "warmup_steps = " + QString::number(every > 1 ? every - 1 : 1),
                             "[train]",
                             "batch_size = 4",
                             "eval_every = " + QString::number(every),
                             "eval_batches = " + QString::number(every > 2 ? 2 : 1),
                             "checkpoint_every = " + QString::number(every),
                             "log_every = 1",
                             "threads = 1",
                             "[log]",
                             "flush_seconds = 0.2"};
  return lines.join('\n').toUtf8() + '\n';
}

}  // namespace attnlab::tests
