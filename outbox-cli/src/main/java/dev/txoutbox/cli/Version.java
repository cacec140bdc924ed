package dev.txoutbox.cli;

import picocli.CommandLine.IVersionProvider;

/** The version from the jar's manifest, for {@code --version}. */
final class Version implements IVersionProvider {

  @Override
  public String[] getVersion() {
    String version = Version.class.getPackage().getImplementationVersion();
    return new String[] {"txoutbox " + (version == null ? "(development build)" : version)};
  }
}
