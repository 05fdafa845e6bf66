package dev.arbor.platform.net;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/** An IP address or a CIDR range ({@code 10.0.0.0/8}, {@code ::1}, {@code fd00::/8}). */
public record AddressRange(byte[] network, int prefixBits) {
    public AddressRange {
        network = network.clone();
    }

    @Override
    public byte[] network() {
        return network.clone();
    }

    /** Parses a literal address or range; host names are not ranges, so they give an empty answer. */
    public static java.util.Optional<AddressRange> parse(String text) {
        String address = text.trim();
        int bits = -1;
        int slash = address.indexOf('/');
        if (slash >= 0) {
            try {
                bits = Integer.parseInt(address.substring(slash + 1));
            } catch (NumberFormatException e) {
                return java.util.Optional.empty();
            }
            address = address.substring(0, slash);
        }
        if (address.startsWith("[") && address.endsWith("]")) {
            address = address.substring(1, address.length() - 1);
        }
        byte[] bytes;
        try {
            bytes = InetAddress.ofLiteral(address).getAddress();
        } catch (IllegalArgumentException e) {
            return java.util.Optional.empty();
        }
        int max = bytes.length * 8;
        if (bits < 0) {
            bits = max;
        }
        if (bits > max) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new AddressRange(bytes, bits));
    }

    public boolean contains(InetAddress address) {
        byte[] candidate = address.getAddress();
        if (candidate.length != network.length) {
            return false;
        }
        int full = prefixBits / 8;
        if (!Arrays.equals(candidate, 0, full, network, 0, full)) {
            return false;
        }
        int rest = prefixBits % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xFF << (8 - rest)) & 0xFF;
        return (candidate[full] & mask) == (network[full] & mask);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AddressRange other
                && prefixBits == other.prefixBits
                && Arrays.equals(network, other.network);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(network) + prefixBits;
    }

    @Override
    public String toString() {
        try {
            return InetAddress.getByAddress(network).getHostAddress() + "/" + prefixBits;
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
