package dev.shale.server;

/** The entity API with {@code workers = 0}: storage calls run inline on the event loops. */
class InlineEntityApiTest extends EntityApiTest {
  @Override
  ServerOptions options() {
    return TestServer.options().withWorkers(0);
  }
}
