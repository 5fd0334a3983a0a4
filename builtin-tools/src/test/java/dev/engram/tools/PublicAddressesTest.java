package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The IANA special-purpose registries, row by row, and IPv6 forms that carry an IPv4 address. */
class PublicAddressesTest {
    @ParameterizedTest
    @ValueSource(strings = {"0.1.2.3", "10.0.0.1", "100.64.0.1", "127.0.0.1", "169.254.169.254", "172.16.0.1", "172.31.255.255",
            "192.0.0.8", "192.0.2.10", "192.31.196.1", "192.52.193.1", "192.88.99.1", "192.168.1.1", "192.175.48.1",
            "198.18.0.1", "198.19.255.1", "198.51.100.7", "203.0.113.9", "224.0.0.1", "240.0.0.1", "255.255.255.255",
            "::1", "::", "::127.0.0.1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::7f00:1", "64:ff9b::a00:1",
            "64:ff9b:1::1", "100::1", "2001::1", "2001:db8::1", "2002:7f00:1::1", "2002:808:808::1", "3fff::1",
            "5f00::1", "fc00::1", "fd12:3456::1", "fe80::1", "fec0::1", "ff02::1"})
    void specialPurposeAddressesAreNotPublic(String address) throws Exception {
        assertThat(PublicAddresses.isPublic(InetAddress.getByName(address))).as(address).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"8.8.8.8", "1.1.1.1", "93.184.215.14", "172.32.0.1", "192.0.1.1", "198.20.0.1",
            "2606:4700:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8", "64:ff9b::808:808"})
    void publicAddressesArePublic(String address) throws Exception {
        assertThat(PublicAddresses.isPublic(InetAddress.getByName(address))).as(address).isTrue();
    }
}
