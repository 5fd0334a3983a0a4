package dev.engram.tools;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Whether an address is on the public internet, by the IANA IPv4 and IPv6 Special-Purpose Address
 * Registries: every block they list is refused (loopback, private, shared, link-local, documentation,
 * benchmarking, reserved, multicast, unique-local, discard, the protocol assignments), and an IPv6
 * address that carries an IPv4 one (mapped, NAT64 {@code 64:ff9b::/96}) is judged by that IPv4
 * address; 6to4 ({@code 2002::/16}) and the deprecated IPv4-compatible {@code ::/96} are refused.
 */
public final class PublicAddresses {
    /** A network: its address bytes and prefix length. */
    private record Block(byte[] network, int prefix) {
        static Block of(String cidr) {
            int slash = cidr.indexOf('/');
            try {
                return new Block(InetAddress.getByName(cidr.substring(0, slash)).getAddress(),
                        Integer.parseInt(cidr.substring(slash + 1)));
            } catch (UnknownHostException e) {
                throw new IllegalStateException(cidr, e);
            }
        }

        boolean contains(byte[] address) {
            if (address.length != network.length) {
                return false;
            }
            for (int bit = 0; bit < prefix; bit++) {
                int mask = 0x80 >>> (bit % 8);
                if ((address[bit / 8] & mask) != (network[bit / 8] & mask)) {
                    return false;
                }
            }
            return true;
        }
    }

    private static final List<Block> IPV4 = List.of("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8",
            "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.31.196.0/24", "192.52.193.0/24",
            "192.88.99.0/24", "192.168.0.0/16", "192.175.48.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
            "224.0.0.0/4", "240.0.0.0/4").stream().map(Block::of).toList();
    private static final List<Block> IPV6 = List.of("::/96", "64:ff9b:1::/48", "100::/64", "100:0:0:1::/64", "2001::/23",
            "2001:db8::/32", "2002::/16", "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8")
            .stream().map(Block::of).toList();
    private static final Block MAPPED = Block.of("::ffff:0:0/96");
    private static final Block NAT64 = Block.of("64:ff9b::/96");

    private PublicAddresses() {
    }

    /** Whether {@code address} is on the public internet (in no special-purpose block). */
    public static boolean isPublic(InetAddress address) {
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            return IPV4.stream().noneMatch(block -> block.contains(b));
        }
        if (address instanceof Inet6Address) {
            if (MAPPED.contains(b) || NAT64.contains(b)) {
                return isPublic(embedded(b));
            }
            return IPV6.stream().noneMatch(block -> block.contains(b));
        }
        return false;
    }

    private static InetAddress embedded(byte[] v6) {
        try {
            return InetAddress.getByAddress(new byte[] {v6[12], v6[13], v6[14], v6[15]});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
