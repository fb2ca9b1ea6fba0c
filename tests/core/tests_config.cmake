# Tests of core/config: schema, parsing, overrides, validation, serialisation, the shipped
# configs in resources/configs/ and the generated reference in docs/configuration.md.
attnlab_add_qtest(core test_config LIBS attnlab_core_config nlohmann_json::nlohmann_json)
