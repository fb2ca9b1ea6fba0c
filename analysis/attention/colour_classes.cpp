#include "analysis/attention/colour_classes.h"

#include <cmath>
#include <numbers>

namespace attnlab::analysis {

ColourThresholds jsdColourThresholds(LogBase base) {
  if (base == LogBase::Bits) return kJsdColourThresholdsBits;
  return {kJsdColourThresholdsBits.low * std::numbers::ln2,
          kJsdColourThresholdsBits.high * std::numbers::ln2};
}

ColourClass colourClass(double median, const ColourThresholds& thresholds) {
  if (std::isnan(median)) return ColourClass::None;
  if (median < thresholds.low) return ColourClass::Blue;
  if (median > thresholds.high) return ColourClass::Red;
  return ColourClass::Yellow;
}

ColourClass entropyColour(double medianNats) {
  return colourClass(medianNats, kEntropyColourThresholds);
}

ColourClass jsdColour(double medianBits) {
  return colourClass(medianBits, kJsdColourThresholdsBits);
}

const char* colourName(ColourClass colour) {
  switch (colour) {
    case ColourClass::Blue:
      return "blue";
    case ColourClass::Yellow:
      return "yellow";
    case ColourClass::Red:
      return "red";
    case ColourClass::None:
      return "none";
  }
  return "?";
}

}  // namespace attnlab::analysis
