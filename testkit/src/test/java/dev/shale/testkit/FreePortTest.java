package dev.shale.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortTest {
  @Test
  void portsHandedOutInOneJvmAreAllDifferent() {
    // 500 binds to port 0 in a range of ~28,000: the kernel repeats one with near certainty.
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 500; i++) {
      int port = FreePort.find();
      assertThat(ports.add(port)).as("port " + port + " handed out twice, at call " + i).isTrue();
    }
  }
}
