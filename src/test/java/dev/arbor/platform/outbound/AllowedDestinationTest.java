package dev.arbor.platform.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.arbor.Config;
import dev.arbor.platform.config.ConfigException;
import dev.arbor.platform.net.AddressRange;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code ARBOR_OUTBOUND_ALLOW} entries as written: a name, an address or a range, each on any port or on one. */
class AllowedDestinationTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "mail.internal       | mail.internal |",
                "Mail.Internal:25    | mail.internal | 25",
                "localhost:8080      | localhost     | 8080",
                "10.0.0.5            | 10.0.0.5/32   |",
                "10.0.0.5:9000       | 10.0.0.5/32   | 9000",
                "10.0.0.0/8          | 10.0.0.0/8    |",
                "10.0.0.0/8:443      | 10.0.0.0/8    | 443",
                "fd00::1             | fd00:0:0:0:0:0:0:1/128 |",
                "[fd00::1]           | fd00:0:0:0:0:0:0:1/128 |",
                "[fd00::1]:443       | fd00:0:0:0:0:0:0:1/128 | 443",
                "fd00::/8            | fd00:0:0:0:0:0:0:0/8 |"
            })
    void anEntryIsANameOrARangeOnAnyPortOrOne(String entry, String target, Integer port) {
        AllowedDestination parsed = AllowedDestination.parse(entry);
        switch (parsed.target()) {
            case AllowedDestination.Target.Name(String name) -> assertThat(name).isEqualTo(target);
            case AllowedDestination.Target.Range(AddressRange range) ->
                assertThat(range.toString()).isEqualTo(target);
        }
        assertThat(parsed.port()).isEqualTo(port == null ? OptionalInt.empty() : OptionalInt.of(port));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "mail.internal:smtp | a number from 1 to 65535",
                "mail.internal:0    | a number from 1 to 65535",
                "10.0.0.5:70000     | a number from 1 to 65535",
                "[fd00::1]:         | a number from 1 to 65535",
                "10.0.0.0/33        | not an address or CIDR range",
                "10.0.0.0/x         | not an address or CIDR range",
                "[mail.internal]:25 | not an address or CIDR range",
                "fd00::zz           | not an address or CIDR range",
                "http://mail/       | a number from 1 to 65535",
                "mail internal      | not a host name",
                "-mail.internal     | not a host name"
            })
    void aMalformedEntryStopsTheStartAndSaysWhy(String entry, String why) {
        assertThatThrownBy(() -> Config.load(Map.of("ARBOR_OUTBOUND_ALLOW", "example.com," + entry), List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ARBOR_OUTBOUND_ALLOW")
                .hasMessageContaining("'" + entry.strip() + "'")
                .hasMessageContaining(why);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                // entry          | host      | port | allowed
                "127.0.0.1:8080   | 127.0.0.1 | 8080 | true",
                "127.0.0.1:8080   | 127.0.0.1 | 8081 | false",
                "127.0.0.1        | 127.0.0.1 | 1    | true",
                "127.0.0.0/8:25   | 127.9.9.9 | 25   | true",
                "127.0.0.0/8:25   | 127.9.9.9 | 587  | false",
                "[::1]:9000       | ::1       | 9000 | true",
                "[::1]:9000       | [::1]     | 9001 | false",
                "localhost:25     | localhost | 25   | true",
                "localhost:25     | LOCALHOST | 25   | true",
                "localhost:25     | localhost | 587  | false",
                "10.0.0.0/8       | 127.0.0.1 | 80   | false"
            })
    void anEntryWithAPortAllowsThatPortOnly(String entry, String host, int port, boolean allowed) {
        var policy = new OutboundPolicy(List.of(AllowedDestination.parse(entry)));
        if (allowed) {
            assertThat(policy.checkHost(host, port)).isNotEmpty().allMatch(InetAddress::isLoopbackAddress);
        } else {
            assertThatThrownBy(() -> policy.checkHost(host, port))
                    .isInstanceOf(OutboundRefusedException.class)
                    .hasMessageContaining("ARBOR_OUTBOUND_ALLOW");
        }
    }
}
