#pragma once

#include "analysis/attention/distribution_stats.h"

namespace attnlab::analysis {

/// RealFormer's violin colours, so that our figures can be read against theirs; the
/// thresholds, their units and where they come from: docs/analysis.md#colour-classes. This
/// header is the one place they are written: the analysis colours its reports with it and
/// the violin widget (widgets/plots/violin_grid.h) its violins.
/// None: the distribution is empty (no row was usable), so it has no median to classify.
enum class ColourClass { Blue, Yellow, Red, None };

/// A median below `low` is Blue, above `high` Red, and from `low` to `high` (both
/// inclusive) Yellow.
struct ColourThresholds {
  double low = 0.0;
  double high = 0.0;
};

/// Entropy violins, in nats: red above 4.5, yellow from 1.5 to 4.5, blue below 1.5.
inline constexpr ColourThresholds kEntropyColourThresholds{1.5, 4.5};
/// JSD violins, in bits: blue below 0.25, yellow from 0.25 to 0.75, red above 0.75.
inline constexpr ColourThresholds kJsdColourThresholdsBits{0.25, 0.75};

/// The JSD thresholds in `base` (the bits thresholds times ln 2 for nats), so a median is
/// classified in the unit it was measured in.
ColourThresholds jsdColourThresholds(LogBase base);

/// The class of a distribution by its median; None for NaN (an empty distribution).
ColourClass colourClass(double median, const ColourThresholds& thresholds);
/// colourClass(medianNats, kEntropyColourThresholds).
ColourClass entropyColour(double medianNats);
/// colourClass(medianBits, kJsdColourThresholdsBits). Pass bits: convert a median in nats
/// first (divide by ln 2), or use colourClass() with jsdColourThresholds(LogBase::Nats).
ColourClass jsdColour(double medianBits);
/// "blue", "yellow", "red" or "none": the names reports and plots use.
const char* colourName(ColourClass colour);

}  // namespace attnlab::analysis
