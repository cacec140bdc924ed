package dev.txoutbox.console;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium driven by its chromedriver ({@code apt-get install chromium
 * chromium-driver}; {@code .ci/run} installs them), with a fresh profile and none of the background
 * connections a closed network refuses.
 */
final class Browser implements AutoCloseable {

  static final String CHROMIUM = "/usr/bin/chromium";
  static final String CHROMEDRIVER = "/usr/bin/chromedriver";

  /** Where the screenshots go: one PNG per page. */
  static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

  final ChromeDriver driver;
  final WebDriverWait wait;
  private final Path profile;

  Browser() {
    try {
      profile = Files.createTempDirectory("console-chromium-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM);
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-dev-shm-usage",
        "--user-data-dir=" + profile);
    ChromeDriverService service =
        new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER)).build();
    driver = new ChromeDriver(service, options);
    driver.manage().window().setSize(new Dimension(1280, 900));
    wait = new WebDriverWait(driver, Duration.ofSeconds(20));
  }

  /** Saves what the browser shows as {@code name}.png under {@link #SCREENSHOTS}. */
  void screenshot(String name) {
    try {
      Files.createDirectories(SCREENSHOTS);
      File shot = driver.getScreenshotAs(OutputType.FILE);
      Files.copy(
          shot.toPath(), SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    driver.quit();
  }
}
