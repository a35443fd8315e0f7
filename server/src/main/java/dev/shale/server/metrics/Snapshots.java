package dev.shale.server.metrics;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.prometheus.metrics.model.snapshots.SummarySnapshot.SummaryDataPointSnapshot;
import java.util.Map;

/**
 * Builds the snapshots a collector returns at scrape time, one metric family at a time. Counter
 * names are given without {@code _total}: the text format writer appends it.
 */
final class Snapshots {
  private final MetricSnapshots.Builder families = MetricSnapshots.builder();

  Snapshots counter(String name, String help, double value) {
    families.metricSnapshot(CounterSnapshot.builder().name(name).help(help)
        .dataPoint(CounterDataPointSnapshot.builder().value(value).build()).build());
    return this;
  }

  Snapshots gauge(String name, String help, double value) {
    families.metricSnapshot(GaugeSnapshot.builder().name(name).help(help)
        .dataPoint(GaugeDataPointSnapshot.builder().value(value).build()).build());
    return this;
  }

  /** A gauge with one label, {@code label}: a data point per entry of {@code values}. */
  Snapshots gauge(String name, String help, String label, Map<String, ? extends Number> values) {
    GaugeSnapshot.Builder gauge = GaugeSnapshot.builder().name(name).help(help);
    values.forEach((labelValue, value) -> gauge.dataPoint(GaugeDataPointSnapshot.builder()
        .labels(Labels.of(label, labelValue)).value(value.doubleValue()).build()));
    families.metricSnapshot(gauge.build());
    return this;
  }

  /** A summary without quantiles: how many times something happened and how long it took in all. */
  Snapshots summary(String name, String help, long count, double sumSeconds) {
    families.metricSnapshot(SummarySnapshot.builder().name(name).help(help)
        .dataPoint(SummaryDataPointSnapshot.builder().count(count).sum(sumSeconds).quantiles(Quantiles.EMPTY).build())
        .build());
    return this;
  }

  MetricSnapshots build() {
    return families.build();
  }
}
