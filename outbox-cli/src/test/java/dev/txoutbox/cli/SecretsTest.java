package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SecretsTest {

  @Test
  void masksThePasswordQueryParameterOfAJdbcUrl() {
    assertThat(Secrets.mask("jdbc:postgresql://db:5432/app?user=app&password=s3cr%3Dt&ssl=true"))
        .isEqualTo("jdbc:postgresql://db:5432/app?user=app&password=****&ssl=true");
    assertThat(Secrets.mask("jdbc:postgresql://db/app?sslpassword=k&password=p"))
        .isEqualTo("jdbc:postgresql://db/app?sslpassword=****&password=****");
    assertThat(Secrets.mask("jdbc:postgresql://db/app?PASSWORD=p"))
        .isEqualTo("jdbc:postgresql://db/app?PASSWORD=****");
  }

  @Test
  void masksTheUserInfoPasswordOfAUri() {
    assertThat(Secrets.mask("amqp://app:pa55@rabbit:5672/%2F"))
        .isEqualTo("amqp://app:****@rabbit:5672/%2F");
    assertThat(Secrets.mask("amqps://app:@rabbit/vhost"))
        .isEqualTo("amqps://app:****@rabbit/vhost");
    assertThat(Secrets.mask("uri amqp://a:b@h and amqp://c:d@i"))
        .isEqualTo("uri amqp://a:****@h and amqp://c:****@i");
  }

  @Test
  void leavesUrisWithoutPasswordsAlone() {
    assertThat(Secrets.mask("amqp://app@rabbit:5672/%2F")).isEqualTo("amqp://app@rabbit:5672/%2F");
    assertThat(Secrets.mask("jdbc:postgresql://db:5432/app?user=app"))
        .isEqualTo("jdbc:postgresql://db:5432/app?user=app");
    assertThat(Secrets.mask("http://127.0.0.1:9324")).isEqualTo("http://127.0.0.1:9324");
    assertThat(Secrets.mask(null)).isNull();
  }

  @Test
  void masksQuotedPasswordsInAJaasConfig() {
    String jaas =
        "org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " username=\"alice\" password=\"al1ce-secret\";";

    assertThat(Secrets.mask(jaas))
        .isEqualTo(
            "org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " username=\"alice\" password=\"****\";");
    assertThat(Secrets.mask("ScramLoginModule required username='bob' password='x y';"))
        .isEqualTo("ScramLoginModule required username='bob' password='****';");
  }

  @Test
  void masksSecretsTokensAndKeysByName() {
    assertThat(Secrets.mask("client_secret=abc;token=t;api_key=k;name=kept"))
        .isEqualTo("client_secret=****;token=****;api_key=****;name=kept");
  }

  @Test
  void settingsNamedLikeSecretsAreHiddenWhole() {
    assertThat(Secrets.maskSetting("kafka.sasl.jaas.config", "anything at all")).isEqualTo("****");
    assertThat(Secrets.maskSetting("kafka.ssl.key.password", "x")).isEqualTo("****");
    assertThat(Secrets.maskSetting("kafka.ssl.keystore.key", "-----BEGIN")).isEqualTo("****");
    assertThat(Secrets.maskSetting("amqp-uri", "amqp://u:p@h")).isEqualTo("amqp://u:****@h");
    assertThat(Secrets.maskSetting("bootstrap-servers", "k1:9092")).isEqualTo("k1:9092");
  }
}
