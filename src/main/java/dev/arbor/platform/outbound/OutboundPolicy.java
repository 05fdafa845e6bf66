package dev.arbor.platform.outbound;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.net.AddressRange;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Decides which addresses outbound calls may reach. Loopback, private, link-local, shared, multicast, documentation,
 * cloud metadata and the IPv6 forms that carry an IPv4 address (mapped, compatible, translated, NAT64, 6to4, Teredo)
 * are refused unless {@code ARBOR_OUTBOUND_ALLOW} lists the host name, the address or a range holding it, with or
 * without a port ({@code 10.0.0.5:9000}, {@code [fd00::1]:443}, {@code mail.internal:25}). A name is refused when any
 * address it resolves to is refused, so a name cannot smuggle in one private address among public ones.
 */
public final class OutboundPolicy {
    private static final List<AddressRange> REFUSED = ranges(
            "0.0.0.0/8",
            "10.0.0.0/8",
            "100.64.0.0/10",
            "127.0.0.0/8",
            "169.254.0.0/16",
            "172.16.0.0/12",
            "192.0.0.0/24",
            "192.0.2.0/24",
            "192.88.99.0/24",
            "192.168.0.0/16",
            "198.18.0.0/15",
            "198.51.100.0/24",
            "203.0.113.0/24",
            "224.0.0.0/4",
            "240.0.0.0/4",
            "::/96",
            "::ffff:0:0:0/96",
            "fc00::/7",
            "fe80::/10",
            "ff00::/8",
            "64:ff9b::/96",
            "64:ff9b:1::/48",
            "2001::/32",
            "2001:db8::/32",
            "2002::/16");

    /** Name resolution, the system's but in tests (a name that rebinds, a name only the test knows). */
    @FunctionalInterface
    public interface Resolver {
        InetAddress[] addresses(String host) throws UnknownHostException;
    }

    private final List<AllowedDestination> allowed;
    private final Resolver resolver;

    public OutboundPolicy(List<AllowedDestination> allowed) {
        this(allowed, InetAddress::getAllByName);
    }

    /** A policy that resolves names with {@code resolver}; every connection's addresses come from it. */
    public OutboundPolicy(List<AllowedDestination> allowed, Resolver resolver) {
        this.allowed = List.copyOf(allowed);
        this.resolver = requireNonNull(resolver, "resolver");
    }

    /**
     * Resolves the URL's host and refuses it unless every address may be reached on the URL's port; the addresses
     * checked, which are the ones to connect to (resolving the name again could give others: DNS rebinding).
     */
    public List<InetAddress> check(URI uri) {
        return checkHost(uri.getHost(), requireCallable(uri));
    }

    /**
     * Refuses what {@link #check} refuses, but for a host name that does not resolve now: a URL kept to be called
     * later (a registry's entry) may name a host this server cannot look up yet, and each connection is checked again.
     */
    public void checkUnlessUnresolved(URI uri) {
        int port = requireCallable(uri);
        String host = uri.getHost();
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        try {
            if (resolver.addresses(bare).length == 0) {
                return;
            }
        } catch (UnknownHostException e) {
            return;
        }
        checkHost(host, port);
    }

    /**
     * Refuses a URL whose scheme or host the policy cannot judge, without resolving its host; the port it is called
     * on. The addresses are checked when the connection is made ({@link OutboundClient}).
     */
    public int requireCallable(URI uri) {
        return callablePort(uri);
    }

    /**
     * Why a URL cannot be judged (without resolving its host): Java's URI parser refuses it, or reads it without an
     * http(s) scheme or without a host. An address written short, in hex or with a trailing dot ({@code 127.1},
     * {@code 0x7f.1}, {@code 169.254.169.254.}) reads as no host: the policy cannot say what it reaches. Empty when
     * it can be judged.
     */
    public static Optional<String> unjudgeable(String url) {
        try {
            callablePort(new URI(url));
            return Optional.empty();
        } catch (URISyntaxException e) {
            return Optional.of("it is not a URL (" + e.getReason() + ")");
        } catch (OutboundRefusedException e) {
            return Optional.of(e.getMessage());
        }
    }

    private static int callablePort(URI uri) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new OutboundRefusedException("only http and https URLs may be called, not '" + uri.getScheme() + "'");
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw new OutboundRefusedException("the URL has no host this server can judge: " + uri
                    + " (write an address in full, as 127.0.0.1, and a name without a trailing dot)");
        }
        return uri.getPort() >= 0 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
    }

    /**
     * Resolves a host name or address (an IPv6 one in brackets or not) and refuses it as {@link #check} does, for a
     * connection to {@code port}; the addresses checked, never empty. A host name the allow-list names is resolved
     * too, and all its addresses are allowed.
     */
    public List<InetAddress> checkHost(String host, int port) {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        String name = bare.toLowerCase(Locale.ROOT);
        InetAddress[] addresses;
        try {
            addresses = resolver.addresses(bare);
        } catch (UnknownHostException e) {
            addresses = new InetAddress[0];
        }
        if (addresses.length == 0) {
            throw new OutboundRefusedException("the host '" + bare + "' does not resolve");
        }
        if (allowed.stream().anyMatch(a -> a.allowsName(name, port))) {
            return List.of(addresses);
        }
        for (InetAddress address : addresses) {
            if (isRefused(address, port)) {
                throw new OutboundRefusedException("'" + bare + "' resolves to " + address.getHostAddress()
                        + ", a loopback, private or internal address; list it in ARBOR_OUTBOUND_ALLOW to allow it");
            }
        }
        return List.of(addresses);
    }

    boolean isRefused(InetAddress address, int port) {
        InetAddress effective = unmapped(address);
        if (allowed.stream().anyMatch(a -> a.allowsAddress(address, effective, port))) {
            return false;
        }
        return effective.isAnyLocalAddress()
                || effective.isLoopbackAddress()
                || effective.isLinkLocalAddress()
                || effective.isSiteLocalAddress()
                || effective.isMulticastAddress()
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
