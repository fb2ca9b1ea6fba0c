#pragma once

#include <QString>
#include <QStringList>

#include <qcustomplot.h>

namespace attnlab::widgets {

/// Perceptually uniform colour maps (matplotlib's viridis, magma and cividis) and a grey
/// ramp. Viridis is the default everywhere: its lightness rises monotonically, so a
/// brighter cell always means a larger value, also in greyscale print and for most forms
/// of colour blindness.
enum class ColourMap { Viridis, Magma, Cividis, Greys };

/// The gradient for `map` with every stop of its table (at least 16) and 256 levels.
QCPColorGradient colourGradient(ColourMap map, bool reversed = false);

/// Number of colour stops `colourGradient(map)` uses (for tests and documentation).
int colourStopCount(ColourMap map);

/// "viridis", "magma", "cividis", "greys".
QString colourMapName(ColourMap map);

/// Parses a name from colourMapName() (case-insensitive); false for anything else.
bool parseColourMap(const QString& text, ColourMap* map);

/// Every map's name, in enum order.
QStringList colourMapNames();

}  // namespace attnlab::widgets
