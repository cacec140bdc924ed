package dev.txoutbox.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The masking rule on a table of credential shapes, and what it must leave readable. */
class SecretMaskingTest {

  /** The shapes every module's output is tested with; each password appears nowhere else. */
  static Stream<Arguments> uris() {
    return Stream.of(
        // JDBC query passwords with the characters a naive "up to , ; ' or space" rule leaks.
        row(
            "jdbc:postgresql://db:5432/app?user=app&password=pa,ss&ssl=true",
            "pa,ss",
            "jdbc:postgresql://db:5432/app?user=app&password=****&ssl=true"),
        row(
            "jdbc:postgresql://db/app?password=it'sme",
            "it'sme",
            "jdbc:postgresql://db/app?password=****"),
        row(
            "jdbc:postgresql://db/app?password=semi;colon&ApplicationName=x",
            "semi;colon",
            "jdbc:postgresql://db/app?password=****&ApplicationName=x"),
        row(
            "jdbc:postgresql://db/app?password=with space inside",
            "with space inside",
            "jdbc:postgresql://db/app?password=****"),
        row(
            "jdbc:postgresql://db/app?sslpassword=k3y&PASSWORD=p4ss",
            "k3y",
            "jdbc:postgresql://db/app?sslpassword=****&PASSWORD=****"),
        row(
            "jdbc:postgresql://db/app?pass%77ord=enc0ded",
            "enc0ded", "jdbc:postgresql://db/app?pass%77ord=****"),
        // User info in a JDBC URL.
        row(
            "jdbc:postgresql://app:s3cr3t@db:5432/app",
            "s3cr3t",
            "jdbc:postgresql://app:****@db:5432/app"),
        // AMQP passwords with unencoded /, # and ?: the user info runs to the last @.
        row("amqp://app:pa/ss@rabbit:5672/%2F", "pa/ss", "amqp://app:****@rabbit:5672/%2F"),
        row("amqp://app:pa#ss@rabbit/vhost", "pa#ss", "amqp://app:****@rabbit/vhost"),
        row("amqps://app:pa?ss@rabbit/vhost", "pa?ss", "amqps://app:****@rabbit/vhost"),
        row("amqp://app:p@ss@rabbit/vhost", "p@ss", "amqp://app:****@rabbit/vhost"),
        row("amqp://app:%2Fenc%23@rabbit/vhost", "%2Fenc%23", "amqp://app:****@rabbit/vhost"),
        row("amqps://app:@rabbit/vhost", null, "amqps://app:****@rabbit/vhost"),
        // AWS pre-signed URL parameters.
        row(
            "https://sqs.eu-west-1.amazonaws.com/1/q?X-Amz-Credential=AKIAABCDEFGHIJKLMNOP%2F1"
                + "&X-Amz-Security-Token=FwoGZXIvYXdzEJr&X-Amz-Signature=5d672d79",
            "FwoGZXIvYXdzEJr",
            "https://sqs.eu-west-1.amazonaws.com/1/q?X-Amz-Credential=****"
                + "&X-Amz-Security-Token=****&X-Amz-Signature=****"));
  }

  @ParameterizedTest
  @MethodSource("uris")
  void masksEveryUriShape(String uri, String secret, String expected) {
    assertThat(SecretMasking.maskUri(uri)).isEqualTo(expected);
    assertThat(SecretMasking.maskUri(expected)).as("masked twice").isEqualTo(expected);
    assertThat(SecretMasking.maskText(expected + ", next")).isEqualTo(expected + ", next");
    // Inside a sentence, and quoted, as exception messages carry them.
    String sentence = "cannot connect to '" + uri + "': refused";
    String masked = SecretMasking.maskText(sentence);
    assertThat(masked).startsWith("cannot connect to '").contains(SecretMasking.MASK);
    if (secret != null && !secret.contains(" ")) {
      assertThat(masked).doesNotContain(secret);
      assertThat(SecretMasking.secretsIn(uri)).contains(secret);
    }
  }

  @Test
  void leavesUrisWithoutSecretsAlone() {
    for (String plain :
        List.of(
            "amqp://app@rabbit:5672/%2F",
            "jdbc:postgresql://db:5432/app?user=app&ssl=true",
            "http://127.0.0.1:9324",
            "jdbc:postgresql://db:5432/app?user=admin@server&ssl=true",
            "kafka-1:9092,kafka-2:9092")) {
      assertThat(SecretMasking.maskUri(plain)).as(plain).isEqualTo(plain);
      assertThat(SecretMasking.maskText(plain)).as(plain).isEqualTo(plain);
      assertThat(SecretMasking.secretsIn(plain)).as(plain).isEmpty();
    }
    assertThat(SecretMasking.maskUri(null)).isNull();
    assertThat(SecretMasking.maskText(null)).isNull();
  }

  @Test
  void secretsInGivesTheValuesAsWrittenAndDecoded() {
    assertThat(SecretMasking.secretsIn("amqp://u:a%2Fb@h/v?x=1&token=t%3D1"))
        .containsExactly("a%2Fb", "a/b", "t%3D1", "t=1");
  }

  static Stream<Arguments> texts() {
    return Stream.of(
        // The driver reports a URL's user info as the host it could not resolve.
        row("unknown host app:pw-9f@db.internal", "pw-9f", "unknown host app:****@db.internal"),
        // Kafka JAAS, double- and single-quoted, with spaces and semicolons inside.
        row(
            "org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " username=\"alice\" password=\"al1ce s;cret\";",
            "al1ce s;cret",
            "org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " username=\"alice\" password=\"****\";"),
        row(
            "ScramLoginModule required username='bob' password='x y';",
            "x y",
            "ScramLoginModule required username='bob' password='****';"),
        row(
            "OAuthBearerLoginModule required clientId=\"c\" clientSecret=\"oauth-s3\";",
            "oauth-s3",
            "OAuthBearerLoginModule required clientId=\"c\" clientSecret=\"****\";"),
        // A secret pair as the value of another pair.
        row("config: ssl.key.password=k3y-pass", "k3y-pass", "config: ssl.key.password=****"),
        // JSON and Map.toString shapes.
        row(
            "{\"password\":\"js0n-pw\",\"user\":\"u\"}",
            "js0n-pw",
            "{\"password\":\"****\",\"user\":\"u\"}"),
        row(
            "{aws.secretAccessKey=wJalrXUtnFEMI/K7MDENG, region=eu-west-1}",
            "wJalrXUtnFEMI/K7MDENG",
            "{aws.secretAccessKey=**** region=eu-west-1}"),
        row(
            "AWS_SESSION_TOKEN=IQoJb3JpZ2luX2VjE aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
            "IQoJb3JpZ2luX2VjE",
            "AWS_SESSION_TOKEN=**** aws_access_key_id = ****"),
        row(
            "the key AKIAIOSFODNN7EXAMPLE is not allowed",
            "AKIAIOSFODNN7EXAMPLE",
            "the key **** is not allowed"),
        row("Authorization: Bearer eyJhbGciOi.abc", "eyJhbGciOi", "Authorization: ****"),
        row("client_secret=abc;token=t;api_key=k;name=kept", "abc", "client_secret=****"));
  }

  @ParameterizedTest
  @MethodSource("texts")
  void masksEveryTextShape(String text, String secret, String expected) {
    String masked = SecretMasking.maskText(text);
    assertThat(masked).isEqualTo(expected);
    assertThat(SecretMasking.maskText(masked)).as("masked twice").isEqualTo(expected);
    assertThat(masked).doesNotContain(secret);
  }

  @Test
  void leavesOrdinaryTextAlone() {
    for (String plain :
        List.of(
            "FATAL: password authentication failed for user \"app\"",
            "Connection to 127.0.0.1:5432 refused. Check that the hostname and port are correct",
            "RecordTooLargeException: The message is 2000000 bytes when serialized",
            "at dev.txoutbox.Relay.run(Relay.java:42)",
            "event_type=order.created attempt=3")) {
      assertThat(SecretMasking.maskText(plain)).as(plain).isEqualTo(plain);
    }
  }

  @Test
  void settingsNamedLikeSecretsAreHiddenWhole() {
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("sasl.jaas.config", "anything at all");
    settings.put("ssl.key.password", "x");
    settings.put("ssl.truststore.password", "y");
    settings.put("ssl.keystore.key", "-----BEGIN PRIVATE KEY-----");
    settings.put("sasl.mechanism", "SCRAM-SHA-512");
    settings.put("aws.accessKeyId", "AKIAIOSFODNN7EXAMPLE");
    settings.put("aws.secretAccessKey", "wJalr");
    settings.put("aws.sessionToken", "IQoJ");
    settings.put("amqp-uri", "amqp://u:p/w@h");
    settings.put("bootstrap.servers", "k1:9092");
    settings.put("acks", "all");

    assertThat(SecretMasking.maskSettings(settings))
        .containsExactly(
            Map.entry("acks", "all"),
            Map.entry("amqp-uri", "amqp://u:****@h"),
            Map.entry("aws.accessKeyId", "****"),
            Map.entry("aws.secretAccessKey", "****"),
            Map.entry("aws.sessionToken", "****"),
            Map.entry("bootstrap.servers", "k1:9092"),
            Map.entry("sasl.jaas.config", "****"),
            Map.entry("sasl.mechanism", "SCRAM-SHA-512"),
            Map.entry("ssl.key.password", "****"),
            Map.entry("ssl.keystore.key", "****"),
            Map.entry("ssl.truststore.password", "****"));
    assertThat(SecretMasking.isSecretKey("key.serializer")).isFalse();
    assertThat(SecretMasking.isSecretKey("routing-key")).isFalse();
    assertThat(SecretMasking.isSecretKey("basic.auth.user.info")).isTrue();
    assertThat(SecretMasking.isSecretKey(null)).isFalse();
  }

  private static Arguments row(String input, String secret, String expected) {
    return Arguments.of(input, secret, expected);
  }
}
