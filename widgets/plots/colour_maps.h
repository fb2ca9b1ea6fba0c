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

/// A diverging map for signed values centred on 0 (ColorBrewer's RdBu, its ends swapped):
/// dark blue at 0, white at 0.5, dark red at 1. Drawn over a range symmetric around 0
/// ([-m, m]), white is exactly 0, blue negative and red positive; the lightness falls
/// the same way on both sides, so |value| reads alike in either sign. Not a ColourMap: a
/// theme's default map colours magnitudes, which a diverging map would misstate.
QCPColorGradient divergingGradient();

}  // namespace attnlab::widgets
