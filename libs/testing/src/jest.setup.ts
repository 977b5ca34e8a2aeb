// Tests never export traces anywhere (see DEPENDENCIES.md: an unconfigured exporter hangs shutdown).
process.env['OTEL_TRACES_EXPORTER'] = 'none';
process.env['LOOM_LOG_LEVEL'] = process.env['LOOM_LOG_LEVEL'] ?? 'silent';
