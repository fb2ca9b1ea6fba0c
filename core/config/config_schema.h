#pragma once

// The one schema of a run's configuration: every key path of RunConfig with its type,
// default, meaning, constraint and an accessor bound to the struct member. Parsing (TOML,
// JSON, --set overrides), validation, serialisation and the reference table in
// docs/configuration.md are all driven from this registry, so a new key is one entry in
// configSchema() (config_schema.cpp) and nothing else.

#include "core/config/config_choices.h"
#include "core/config/run_config.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace attnlab::core {

/// The kind of value a key holds. `Choice` is a string restricted to a list of values: in
/// RunConfig an enum of config_choices.h, converted at validation. A `StringList` may
/// restrict its items the same way (a list of enum values in RunConfig).
enum class ConfigType { Integer, Float, Boolean, String, Choice, StringList };

/// A key's value in transit between a file, the command line and RunConfig. Integers of
/// every width travel as int64 (TOML's integer range), floats as double.
using ConfigValue = std::variant<std::int64_t, double, bool, std::string, std::vector<std::string>>;

/// Returns an empty string when a value is acceptable, otherwise the reason it is not
/// ("must be >= 1, got 0"), phrased to follow "<key path>: ".
using ConfigCheck = std::function<std::string(const ConfigValue&)>;

/// A per-key constraint: the check plus how the reference table states it.
struct ConfigConstraint {
  std::string text;   ///< e.g. ">= 1", "[0, 1)", "" when unconstrained
  ConfigCheck check;  ///< empty when unconstrained
  /// For string keys (a Choice) and string-list keys: the allowed values of each item.
  std::vector<std::string> choices;
};

/// One entry of the schema.
struct ConfigKey {
  std::string path;  ///< TOML key path, e.g. "model.hidden_size"
  ConfigType type = ConfigType::String;
  std::string meaning;          ///< one line for the reference table
  ConfigValue defaultValue;     ///< taken from a default-constructed RunConfig
  ConfigConstraint constraint;  ///< range, choices or other per-key rule
  std::function<ConfigValue(const RunConfig&)> get;
  std::function<void(RunConfig&, const ConfigValue&)> set;  ///< value already checked

  /// "model" for "model.hidden_size" (everything before the last dot).
  std::string section() const;
  /// "hidden_size" for "model.hidden_size".
  std::string name() const;
};

/// A rule across several keys, checked by validateRunConfig() after the per-key checks.
struct ConfigRule {
  std::vector<std::string> keys;  ///< the key paths involved; the first is where() of errors
  std::string text;               ///< the rule as stated in the reference
  /// Empty when the config satisfies the rule, otherwise the reason naming the keys.
  std::function<std::string(const RunConfig&)> check;
};

/// Every key, in the order of the reference table and of toToml()'s output.
const std::vector<ConfigKey>& configSchema();
/// The cross-key rules.
const std::vector<ConfigRule>& configRules();
/// The entry for a key path, or nullptr.
const ConfigKey* findConfigKey(std::string_view path);
/// Every section path ("run", "model", and for nested keys "a.b" as well as "a"), in
/// schema order.
const std::vector<std::string>& configSections();

/// "an integer", "a number", "a boolean", "a string", "one of ...", "a list of strings".
std::string describeExpected(const ConfigKey& key);
/// The reference table type column: "integer >= 1", "`post` \| `pre`", ...
std::string describeType(const ConfigKey& key);
/// A value as a TOML literal: `256`, `0.1`, `1e-12`, `true`, `"post"`, `["a", "b"]`.
/// Floats use the shortest text that reads back to the same double.
std::string toTomlLiteral(const ConfigValue& value);
/// The key paths whose values differ between two configs (exact comparison, floats
/// included); empty when they are equal. Also how resume tells what changed.
std::vector<std::string> differingKeys(const RunConfig& a, const RunConfig& b);

// --- constraints ---------------------------------------------------------------------
// Numeric bounds compare the value as a double, so they serve integer and float keys.

/// No constraint beyond the type.
ConfigConstraint unconstrained();
/// value >= lo
ConfigConstraint atLeast(double lo);
/// value > lo
ConfigConstraint greaterThan(double lo);
/// lo <= value <= hi, or with open ends when the flags say so ("[0, 1)").
ConfigConstraint inRange(double lo, double hi, bool loOpen = false, bool hiOpen = false);
/// A string from a fixed list.
ConfigConstraint oneOf(std::vector<std::string> choices);
/// A non-empty string.
ConfigConstraint nonEmpty();
/// A list whose every item is one of `choices`.
ConfigConstraint eachOneOf(std::vector<std::string> choices);

namespace detail {

template <class T>
struct IsChoiceList : std::false_type {};
template <class E>
struct IsChoiceList<std::vector<E>> : std::bool_constant<kIsConfigChoice<E>> {};

template <class T>
constexpr ConfigType configTypeOf() {
  if constexpr (kIsConfigChoice<T>) {
    return ConfigType::Choice;
  } else if constexpr (IsChoiceList<T>::value) {
    return ConfigType::StringList;
  } else if constexpr (std::is_same_v<T, bool>) {
    return ConfigType::Boolean;
  } else if constexpr (std::is_integral_v<T>) {
    return ConfigType::Integer;
  } else if constexpr (std::is_floating_point_v<T>) {
    return ConfigType::Float;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return ConfigType::String;
  } else {
    static_assert(std::is_same_v<T, std::vector<std::string>>,
                  "config keys are bool, integers, double, std::string, a choice enum of "
                  "config_choices.h, or a vector of strings or of one choice enum");
    return ConfigType::StringList;
  }
}

/// Values of an integer member's type: an int member rejects 2^40 with a message instead
/// of wrapping, an unsigned one rejects -1.
ConfigConstraint integerBounds(std::int64_t lo, std::int64_t hi);

/// The names of a choice enum's table.
template <class E>
std::vector<std::string> choiceNames() {
  std::vector<std::string> names;
  for (const auto& row : choiceTable(E{})) names.emplace_back(row.name);
  return names;
}

/// The range a member of type T can hold (for a choice enum: its names). TOML integers
/// are int64, so wider types need no upper bound.
template <class T>
ConfigConstraint representableBy() {
  if constexpr (kIsConfigChoice<T>) {
    return oneOf(choiceNames<T>());
  } else if constexpr (IsChoiceList<T>::value) {
    return eachOneOf(choiceNames<typename T::value_type>());
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using Limits = std::numeric_limits<T>;
    using I64 = std::numeric_limits<std::int64_t>;
    constexpr std::int64_t lo = Limits::is_signed ? static_cast<std::int64_t>(Limits::min()) : 0;
    constexpr std::int64_t hi =
        Limits::digits >= I64::digits ? I64::max() : static_cast<std::int64_t>(Limits::max());
    return integerBounds(lo, hi);
  } else {
    return {};
  }
}

ConfigKey finishConfigKey(ConfigKey key, ConfigConstraint typeBounds);

}  // namespace detail

/// Builds a schema entry. `access` is a generic lambda returning the member by reference,
/// `[](auto& c) -> auto& { return c.model.hiddenSize; }`, which works for const and
/// mutable configs and for members nested at any depth. The type, the default and, for a
/// choice enum, the allowed names follow from the member.
template <class Access>
ConfigKey configKey(std::string path, Access access, std::string meaning,
                    ConfigConstraint constraint = {}) {
  using T = std::remove_cvref_t<decltype(access(std::declval<RunConfig&>()))>;
  ConfigKey key;
  key.path = std::move(path);
  key.type = detail::configTypeOf<T>();
  key.meaning = std::move(meaning);
  key.constraint = std::move(constraint);
  key.get = [access](const RunConfig& c) -> ConfigValue {
    const T& v = access(c);
    if constexpr (kIsConfigChoice<T>) {
      return std::string(choiceName(v));
    } else if constexpr (detail::IsChoiceList<T>::value) {
      std::vector<std::string> names;
      for (const auto item : v) names.emplace_back(choiceName(item));
      return names;
    } else if constexpr (std::is_same_v<T, bool>) {
      return v;
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<std::int64_t>(v);
    } else if constexpr (std::is_floating_point_v<T>) {
      return static_cast<double>(v);
    } else {
      return v;
    }
  };
  key.set = [access](RunConfig& c, const ConfigValue& value) {
    T& v = access(c);
    // Choices arrive checked against the table (representableBy), so parseChoice finds them.
    if constexpr (kIsConfigChoice<T>) {
      v = *parseChoice<T>(std::get<std::string>(value));
    } else if constexpr (detail::IsChoiceList<T>::value) {
      v.clear();
      for (const auto& name : std::get<std::vector<std::string>>(value)) {
        v.push_back(*parseChoice<typename T::value_type>(name));
      }
    } else if constexpr (std::is_same_v<T, bool>) {
      v = std::get<bool>(value);
    } else if constexpr (std::is_integral_v<T>) {
      v = static_cast<T>(std::get<std::int64_t>(value));
    } else if constexpr (std::is_floating_point_v<T>) {
      v = static_cast<T>(std::get<double>(value));
    } else {
      v = std::get<T>(value);
    }
  };
  return detail::finishConfigKey(std::move(key), detail::representableBy<T>());
}

}  // namespace attnlab::core
