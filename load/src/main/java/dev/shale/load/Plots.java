package dev.shale.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** PNG plots drawn with XChart: latency percentiles against rate, and latency spectra. */
public final class Plots {
  static final int WIDTH = 900;
  static final int HEIGHT = 560;

  static {
    System.setProperty("java.awt.headless", "true"); // no display on servers
  }

  private Plots() {}

  /** p50, p99, p99.9 and max (ms, log scale) against the target rate of each trial. */
  public static void latencyVsRate(String title, List<KneeSearch.Trial> trials, java.time.Duration bound, Path png)
      throws IOException {
    List<KneeSearch.Trial> sorted = trials.stream().sorted(java.util.Comparator.comparingDouble(KneeSearch.Trial::target)).toList();
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
        .xAxisTitle("target rate, requests/s").yAxisTitle("latency, ms").build();
    chart.getStyler().setYAxisLogarithmic(true);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
    List<Double> rates = sorted.stream().map(KneeSearch.Trial::target).toList();
    for (Map.Entry<String, Double> p : Map.of("p50", 50.0, "p99", 99.0, "p99.9", 99.9, "max", 100.0).entrySet()
        .stream().sorted(Map.Entry.comparingByValue()).toList()) {
      List<Double> ms = sorted.stream().map(t -> millisAtLeast(t.result().percentileMicros(p.getValue()))).toList();
      chart.addSeries(p.getKey(), rates, ms).setMarker(SeriesMarkers.CIRCLE);
    }
    if (rates.size() > 0) {
      double boundMs = bound.toNanos() / 1e6;
      XYSeries line = chart.addSeries("p99 bound", List.of(rates.getFirst(), rates.getLast()), List.of(boundMs, boundMs));
      line.setMarker(SeriesMarkers.NONE);
    }
    save(chart, png);
  }

  /** Latency (ms, log) against percentile, x as 1/(1-p) on a log axis like HdrHistogram's plotter. */
  public static void spectrum(String title, Map<String, Histogram> histograms, Path png) throws IOException {
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
        .xAxisTitle("percentile, as 1/(1-p): 10 = p90, 100 = p99, 1000 = p99.9").yAxisTitle("latency, ms").build();
    chart.getStyler().setXAxisLogarithmic(true);
    chart.getStyler().setYAxisLogarithmic(true);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
    for (Map.Entry<String, Histogram> e : histograms.entrySet()) {
      List<Double> x = new ArrayList<>();
      List<Double> y = new ArrayList<>();
      for (HistogramIterationValue v : e.getValue().percentiles(5)) {
        double p = v.getPercentileLevelIteratedTo() / 100.0;
        if (p >= 1.0) break; // 1/(1-p) is infinite at the maximum
        x.add(1 / (1 - p));
        y.add(millisAtLeast(v.getValueIteratedTo()));
      }
      if (!x.isEmpty()) chart.addSeries(e.getKey(), x, y).setMarker(SeriesMarkers.NONE);
    }
    save(chart, png);
  }

  /** {@code plot} with "-timeline" before its extension: knee.png gives knee-timeline.png. */
  public static Path timelineBeside(Path plot) {
    String name = plot.getFileName().toString();
    int dot = name.lastIndexOf('.');
    String timeline = dot > 0 ? name.substring(0, dot) + "-timeline" + name.substring(dot) : name + "-timeline";
    return plot.resolveSibling(timeline);
  }

  /**
   * {@link #latencyOverTime} of a knee's lowest unstable trial, titled with {@code name} and the
   * trial's rate: what broke that rate, drawn the same for {@code shale knee} and the report.
   */
  public static void lowestUnstableTimeline(String name, KneeSearch.Trial unstable, Path png) throws IOException {
    latencyOverTime(String.format(java.util.Locale.ROOT, "%s at %.0f requests/s, the lowest rate not stable", name,
        unstable.target()), unstable.result().latencyBySecond(), png);
  }

  /**
   * p50, p99 and max (ms, log scale) of each second of a run: where a stall happened and how long
   * it lasted. Seconds without answers are left out.
   */
  public static void latencyOverTime(String title, List<LatencyTimeline.Second> seconds, Path png) throws IOException {
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
        .xAxisTitle("second of the measured interval").yAxisTitle("latency, ms").build();
    chart.getStyler().setYAxisLogarithmic(true);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
    List<LatencyTimeline.Second> answered = seconds.stream().filter(s -> s.answers() > 0).toList();
    if (!answered.isEmpty()) {
      List<Integer> x = answered.stream().map(s -> s.second() + 1).toList();
      chart.addSeries("p50", x, answered.stream().map(s -> millisAtLeast(s.p50Micros())).toList()).setMarker(SeriesMarkers.NONE);
      chart.addSeries("p99", x, answered.stream().map(s -> millisAtLeast(s.p99Micros())).toList()).setMarker(SeriesMarkers.NONE);
      chart.addSeries("max", x, answered.stream().map(s -> millisAtLeast(s.maxMicros())).toList()).setMarker(SeriesMarkers.NONE);
    }
    save(chart, png);
  }

  // A log axis cannot show 0: a latency under 1 us is drawn at 1 us.
  private static double millisAtLeast(long micros) {
    return Math.max(1, micros) / 1000.0;
  }

  private static void save(XYChart chart, Path png) throws IOException {
    Path parent = png.toAbsolutePath().getParent();
    if (parent != null) Files.createDirectories(parent);
    BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
  }
}
