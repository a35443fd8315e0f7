package dev.shale.server;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A promtool rule test ({@code promtool test rules}) that replays an idle node: every series of
 * two real scrapes of it, extended at one sample per 15 s for {@link #SCRAPES} scrapes. A series
 * of a counter, a histogram or a summary's count and sum grows by what it grew per scrape between
 * the two scrapes (what an idle node's own scrapes and probes add); a gauge stays at its last
 * value. Each alert is then expected to be silent every minute from the 5th to the 20th.
 */
final class IdleNodeSeries {
  /** 20 minutes of 15 s scrapes: longer than every rule's {@code for} and rate window (predict_linear reads what there is). */
  static final int SCRAPES = 80;

  private static final Pattern TYPE = Pattern.compile("^# TYPE (\\S+) (\\S+)$");
  private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{.*\\})? (\\S+)$");
  private static final String INSTANCE = "job=\"shale\",instance=\"idle-node:8080\"";

  private IdleNodeSeries() {}

  /**
   * The test file: {@code first} and {@code last} are the node's exposition texts, {@code
   * scrapesBetween} scrapes apart; {@code alerts} the names of the rules, each expected silent.
   */
  static String ruleTest(String first, String last, int scrapesBetween, List<String> alerts) {
    Map<String, Double> before = samples(first, false);
    Map<String, Double> after = samples(last, false);
    Map<String, Double> cumulative = samples(last, true);
    StringBuilder yaml = new StringBuilder("rule_files:\n  - shale-rules.yml\nevaluation_interval: 15s\ntests:\n")
        .append("  - interval: 15s\n    input_series:\n")
        .append("      - series: 'up{").append(INSTANCE).append("}'\n        values: '1+0x").append(SCRAPES).append("'\n");
    for (Map.Entry<String, Double> series : after.entrySet()) {
      double value = series.getValue();
      double step = cumulative.containsKey(series.getKey())
          ? Math.max(0, (value - before.getOrDefault(series.getKey(), 0.0)) / scrapesBetween)
          : 0;
      yaml.append("      - series: '").append(series.getKey().replace("'", "''")).append("'\n")
          .append("        values: '").append(plain(value)).append('+').append(plain(step)).append('x').append(SCRAPES).append("'\n");
    }
    yaml.append("    alert_rule_test:\n");
    for (String alert : alerts) {
      for (int minute = 5; minute <= 20; minute++) {
        yaml.append("      - eval_time: ").append(minute).append("m\n        alertname: ").append(alert)
            .append("\n        exp_alerts: []\n");
      }
    }
    return yaml.toString();
  }

  /**
   * Every finite sample of {@code exposition}, keyed by its series with this test's job and
   * instance labels; {@code cumulativeOnly}: only those that only grow (counters, histograms'
   * buckets, counts and sums, summaries' counts and sums).
   */
  private static Map<String, Double> samples(String exposition, boolean cumulativeOnly) {
    Map<String, Double> samples = new LinkedHashMap<>();
    String type = "untyped";
    String family = "";
    for (String line : exposition.split("\n")) {
      Matcher t = TYPE.matcher(line);
      if (t.matches()) {
        family = t.group(1);
        type = t.group(2);
        continue;
      }
      if (line.startsWith("#") || line.isBlank()) continue;
      Matcher s = SAMPLE.matcher(line);
      if (!s.matches()) throw new AssertionError("not a sample line: " + line);
      double value = Double.parseDouble(s.group(3));
      if (!Double.isFinite(value)) continue;
      String name = s.group(1);
      boolean grows = switch (type) {
        case "counter", "histogram" -> true;
        case "summary" -> !name.equals(family); // its _count and _sum, not its quantiles
        default -> false;
      };
      if (cumulativeOnly && !grows) continue;
      String labels = s.group(2) == null ? "{" + INSTANCE + "}" : s.group(2).replaceFirst("}$", "," + INSTANCE + "}");
      samples.put(name + labels, value);
    }
    return samples;
  }

  private static String plain(double value) {
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }
}
