/**
 * The testing kit for services that use txoutbox: {@link OutboxTestDatabase} (a migrated PostgreSQL
 * schema per test class), {@link RecordingPublisher} (records what the relay published, scripts
 * failures) with {@link PublishedAssert}, {@link TestClock}, and {@link TestMessages} (outbox
 * messages with every field filled in, for tests that hand them to a publisher or router). Drain
 * the relay synchronously with {@code OutboxRelay.drain()}. The Publisher contract suite for broker
 * plugins is in {@code dev.txoutbox.testing.contract}.
 */
package dev.txoutbox.testing;
