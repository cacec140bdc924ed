/**
 * The operations console: a JSON API and a web UI over {@link dev.txoutbox.OutboxAdmin}. {@link
 * dev.txoutbox.console.OutboxConsole} is the entry point: build it, then {@link
 * dev.txoutbox.console.OutboxConsole#start()} it on the JDK's own HTTP server, mount its {@link
 * dev.txoutbox.console.OutboxConsole#httpHandler()} on a server you run, or call {@link
 * dev.txoutbox.console.OutboxConsole#handle(ConsoleRequest)} from any other server.
 */
@NullMarked
package dev.txoutbox.console;

import org.jspecify.annotations.NullMarked;
