#pragma once

#include <QString>
#include <QStringList>

class QCPAxis;

namespace attnlab::widgets {

/// The smallest step k such that labelling every k-th of `count` entries leaves at least
/// `pixelsPerLabel` pixels per label over `pixels` (1 when everything fits).
int labelStep(int count, double pixels, double pixelsPerLabel);

/// Shortens a token for a tick label ("ation…" style cut at `maxChars`), keeping the rest
/// for the hover read-out.
QString elideLabel(const QString& text, int maxChars = 12);

/// Puts a text ticker on `axis` with labels[i] at coordinate i for every `step`-th i.
void setIndexLabels(QCPAxis* axis, const QStringList& labels, int step);

/// "0".."n-1", for matrices without token labels.
QStringList indexLabels(int n, const QString& prefix = {});

}  // namespace attnlab::widgets
