package dev.arbor.platform.outbound;

import dev.arbor.platform.net.AddressRange;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Decides which addresses outbound calls may reach. Loopback, private, link-local, shared, multicast and cloud
 * metadata addresses are refused unless {@code ARBOR_OUTBOUND_ALLOW} lists the host name, the address or a range
 * holding it. A name is refused when any address it resolves to is refused, so a name cannot smuggle in one
 * private address among public ones.
 */
public final class OutboundPolicy {
    private static final List<AddressRange> REFUSED = ranges(
            "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
            "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4",
            "::/128", "::1/128", "fc00::/7", "fe80::/10", "ff00::/8", "64:ff9b::/96");

    private final Set<String> allowedHosts = new HashSet<>();
    private final List<AddressRange> allowedRanges = new ArrayList<>();

    public OutboundPolicy(List<String> allow) {
        for (String entry : allow) {
            AddressRange.parse(entry).ifPresentOrElse(allowedRanges::add,
                    () -> allowedHosts.add(entry.trim().toLowerCase(Locale.ROOT)));
        }
    }

    /** Resolves the URL's host and refuses it unless every address may be reached. */
    public void check(URI uri) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new OutboundRefusedException("only http and https URLs may be called, not '" + uri.getScheme() + "'");
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw new OutboundRefusedException("the URL has no host: " + uri);
        }
        checkHost(host);
    }

    /** Resolves a host name or address (an IPv6 one in brackets or not) and refuses it as {@link #check} does. */
    public void checkHost(String host) {
        String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        if (allowedHosts.contains(bare.toLowerCase(Locale.ROOT))) {
            return;
        }
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(bare);
        } catch (UnknownHostException e) {
            throw new OutboundRefusedException("the host '" + bare + "' does not resolve");
        }
        for (InetAddress address : addresses) {
            if (isRefused(address)) {
                throw new OutboundRefusedException("'" + bare + "' resolves to " + address.getHostAddress()
                        + ", a loopback, private or internal address; list it in ARBOR_OUTBOUND_ALLOW to allow it");
            }
        }
    }

    boolean isRefused(InetAddress address) {
        InetAddress effective = unmapped(address);
        if (allowedRanges.stream().anyMatch(r -> r.contains(effective) || r.contains(address))) {
            return false;
        }
        return effective.isAnyLocalAddress() || effective.isLoopbackAddress() || effective.isLinkLocalAddress()
                || effective.isSiteLocalAddress() || effective.isMulticastAddress()
                || REFUSED.stream().anyMatch(r -> r.contains(effective));
    }

    /** An IPv4 address written as IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it is. */
    private static InetAddress unmapped(InetAddress address) {
        if (address instanceof Inet6Address) {
            byte[] b = address.getAddress();
            boolean mapped = true;
            for (int i = 0; i < 10; i++) {
                mapped &= b[i] == 0;
            }
            mapped &= b[10] == (byte) 0xff && b[11] == (byte) 0xff;
            if (mapped) {
                try {
                    return Inet4Address.getByAddress(new byte[] {b[12], b[13], b[14], b[15]});
                } catch (UnknownHostException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return address;
    }

    private static List<AddressRange> ranges(String... cidrs) {
        var list = new ArrayList<AddressRange>();
        for (String cidr : cidrs) {
            list.add(AddressRange.parse(cidr).orElseThrow());
        }
        return List.copyOf(list);
    }
}
