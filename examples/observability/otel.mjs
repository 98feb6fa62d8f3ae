// Loaded before the server with `node --import ./otel.mjs <server>`: registers the OpenTelemetry
// Node SDK, so the kit's spans and metrics (it depends on @opentelemetry/api only) are exported.
//
// - Metrics: a Prometheus scrape endpoint on OTEL_PROMETHEUS_HOST:OTEL_PROMETHEUS_PORT (127.0.0.1:9464
//   by default; port 0 takes a free one). The address is logged on stderr.
// - Spans: with OTEL_TRACES_EXPORTER set (otlp, console, none) the SDK configures them from the
//   standard OTEL_* variables; otherwise each finished span is one JSON line on stderr (never
//   stdout: under MCP_TRANSPORT=stdio, stdout is the protocol).
import { createServer } from 'node:http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { NodeSDK, tracing } from '@opentelemetry/sdk-node';

/** Writes each finished span as one JSON line on stderr. */
class StderrSpanExporter {
  export(spans, done) {
    for (const span of spans) {
      const context = span.spanContext();
      process.stderr.write(
        `${JSON.stringify({
          otel_span: span.name,
          kind: span.kind,
          trace_id: context.traceId,
          span_id: context.spanId,
          parent_span_id: span.parentSpanContext?.spanId,
          status: span.status.code,
          attributes: span.attributes,
          links: span.links.map((link) => link.context.spanId),
          events: span.events.map((event) => event.name),
        })}\n`,
      );
    }
    done({ code: 0 });
  }
  shutdown() {
    return Promise.resolve();
  }
}

const prometheus = new PrometheusExporter({ preventServerStart: true });
const host = process.env.OTEL_PROMETHEUS_HOST ?? '127.0.0.1';
const port = Number(process.env.OTEL_PROMETHEUS_PORT ?? 9464);
const scrape = createServer((req, res) => {
  if (req.url === '/metrics') prometheus.getMetricsRequestHandler(req, res);
  else res.writeHead(404).end();
});
scrape.listen(port, host, () => {
  const { port: bound } = scrape.address();
  process.stderr.write(`prometheus metrics on http://${host}:${bound}/metrics\n`);
});
scrape.unref();

const sdk = new NodeSDK({
  serviceName: process.env.OTEL_SERVICE_NAME ?? 'robot-navigation',
  metricReaders: [prometheus],
  ...(process.env.OTEL_TRACES_EXPORTER
    ? {}
    : { spanProcessors: [new tracing.SimpleSpanProcessor(new StderrSpanExporter())] }),
});
sdk.start();

// Flush what is pending when the server stops (the kit's own shutdown runs on the same signals).
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    void sdk.shutdown().finally(() => scrape.close());
  });
}
