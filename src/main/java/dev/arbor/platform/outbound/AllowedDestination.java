package dev.arbor.platform.outbound;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.net.AddressRange;
import java.net.InetAddress;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.regex.Pattern;

/**
 * One entry of {@code ARBOR_OUTBOUND_ALLOW}: a host name, an address or a CIDR range that outbound calls may reach
 * although it is internal, on any port or on the one it names ({@code mail.internal:25}, {@code 10.0.0.5:9000},
 * {@code [fd00::1]:443}, {@code 10.0.0.0/8}).
 */
public record AllowedDestination(Target target, OptionalInt port) {
    private static final Pattern HOST_NAME =
            Pattern.compile("(?i)[a-z0-9_]([a-z0-9_-]{0,62})(\\.[a-z0-9_]([a-z0-9_-]{0,62}))*\\.?");

    /** What an entry allows: a host name as written in URLs, or the addresses of a range. */
    public sealed interface Target {
        /** A host name, in lower case: allowed whatever it resolves to. */
        record Name(String name) implements Target {
            public Name {
                name = name.toLowerCase(Locale.ROOT);
            }
        }

        /** An address or range; an IPv4 address written as IPv6 is judged by both forms. */
        record Range(AddressRange range) implements Target {
            public Range {
                requireNonNull(range, "range");
            }
        }
    }

    public AllowedDestination {
        requireNonNull(target, "target");
        requireNonNull(port, "port");
    }

    /**
     * Reads an entry as written: a range or address (IPv6 bare or in brackets), or a host name, each but a bare IPv6
     * address with an optional {@code :port} (a bare IPv6 address has colons of its own).
     *
     * @throws IllegalArgumentException saying what is wrong with the entry
     */
    public static AllowedDestination parse(String entry) {
        String text = entry.strip();
        if (text.isEmpty()) {
            throw new IllegalArgumentException("an entry is empty");
        }
        String target = text;
        OptionalInt port = OptionalInt.empty();
        int colon = text.lastIndexOf(':');
        boolean bracketed = text.startsWith("[");
        if ((bracketed && text.lastIndexOf(']') == colon - 1)
                || (!bracketed && colon >= 0 && text.indexOf(':') == colon)) {
            port = OptionalInt.of(port(text, text.substring(colon + 1)));
            target = text.substring(0, colon);
        }
        var range = AddressRange.parse(target);
        if (range.isPresent()) {
            return new AllowedDestination(new Target.Range(range.get()), port);
        }
        if (target.contains("/") || target.contains(":") || target.contains("[")) {
            throw new IllegalArgumentException("'" + text + "' is not an address or CIDR range");
        }
        if (!HOST_NAME.matcher(target).matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a host name, address or CIDR range");
        }
        return new AllowedDestination(new Target.Name(target), port);
    }

    private static int port(String entry, String digits) {
        try {
            int port = Integer.parseInt(digits);
            if (port >= 1 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // said below, with the entry
        }
        throw new IllegalArgumentException("'" + entry + "' names a port that is not a number from 1 to 65535");
    }

    boolean allowsPort(int wanted) {
        return port.isEmpty() || port.getAsInt() == wanted;
    }

    boolean allowsName(String name, int wanted) {
        return target instanceof Target.Name(String allowed) && allowed.equals(name) && allowsPort(wanted);
    }

    boolean allowsAddress(InetAddress address, InetAddress unmapped, int wanted) {
        return target instanceof Target.Range(AddressRange range)
                && (range.contains(address) || range.contains(unmapped))
                && allowsPort(wanted);
    }
}
