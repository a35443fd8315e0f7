package dev.shale.load;

import java.util.ArrayList;
import java.util.List;

/** What async-profiler samples: CPU (or itimer, its fallback), allocations, lock waits. */
public enum ProfileEvent {
  CPU("cpu"),
  ALLOC("alloc"),
  LOCK("lock");

  private final String name;

  ProfileEvent(String name) {
    this.name = name;
  }

  public String eventName() {
    return name;
  }

  /** "cpu,alloc,lock" to its events, in order; a one-line message for an unknown name. */
  public static List<ProfileEvent> parseList(String list) {
    List<ProfileEvent> events = new ArrayList<>();
    for (String part : list.split(",", -1)) { // -1: "cpu," names an empty event, which is refused
      String name = part.trim();
      ProfileEvent found = null;
      for (ProfileEvent e : values()) if (e.name.equals(name)) found = e;
      if (found == null) throw new IllegalArgumentException("unknown profile event '" + name + "'; expected cpu, alloc or lock");
      if (!events.contains(found)) events.add(found);
    }
    return events;
  }
}
