#if Console && Prefs
@testable import SQLiteDefaultsConsole
import Testing
import TestScheduling

/// The `/proc/net/tcp{,6}` reader, on sample text from a little-endian machine (x86-64, arm64).
@Suite("Socket owners from /proc/net/tcp", .offThePool)
struct SocketOwnerTableTests {
    static let tcp = """
          sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 0100007F:223D 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 21810 1 0000000000000000 100 0 0 10 0
           1: 0100007F:D6E2 0100007F:223D 01 00000000:00000000 00:00000000 00000000  1000        0 99811 1 0000000000000000 20 4 30 10 -1
           2: 0100007F:223D 0100007F:D6E2 01 00000000:00000000 00:00000000 00000000     0        0 99812 1 0000000000000000 20 4 30 10 -1
           3: 0200007F:D6E2 0100007F:223D 01 00000000:00000000 00:00000000 00000000 65534        0 99813 1 0000000000000000 20 4 30 10 -1
           4: 0100007F:D6E3 0100007F:223D 06 00000000:00000000 03:00000F5C 00000000  1000        0 0 3 0000000000000000
           5: not a socket line at all
        """
    static let tcp6 = """
          sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 31810 1 0000000000000000 100 0 0 10 0
           1: 00000000000000000000000001000000:C350 00000000000000000000000001000000:1F90 01 00000000:00000000 00:00000000 00000000  1001        0 31811 1 0000000000000000 20 4 30 10 -1
           2: 0000000000000000FFFF00000100007F:C351 0000000000000000FFFF00000100007F:223D 01 00000000:00000000 00:00000000 00000000  1002        0 31812 1 0000000000000000 20 4 30 10 -1
        """

    static let table = SocketOwnerTable(parsing: tcp + "\n" + tcp6)

    static func owners(_ ip: String, _ port: Int) throws -> Set<UInt32> {
        table.owners(ofLocalEnd: try #require(SocketOwnerTable.Endpoint(ip: ip, port: port)))
    }

    @Test("Every socket line is read; the heading and a bad line are skipped")
    func parses() {
        #expect(Self.table.sockets.count == 8)
    }

    #if _endian(little)
    @Test("IPv4: 0100007F is 127.0.0.1 (each word's bytes as the kernel holds them), ports are hex")
    func ipv4ByteOrder() throws {
        let endpoint = try #require(SocketOwnerTable.Endpoint(procField: "0100007F:1F90"))
        #expect(endpoint == SocketOwnerTable.Endpoint(ip: "127.0.0.1", port: 8080))
        #expect(endpoint.address == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 127, 0, 0, 1], "held v4-mapped")
        #expect(try Self.owners("127.0.0.1", 0xD6E2) == [1000])
        #expect(try Self.owners("127.0.0.2", 0xD6E2) == [65534], "the address counts, not only the port")
        #expect(try Self.owners("127.0.0.1", 0x223D) == [0])
    }

    @Test("IPv6: 00000000000000000000000001000000 is ::1")
    func ipv6() throws {
        #expect(SocketOwnerTable.Endpoint(procField: "00000000000000000000000001000000:1F90") == SocketOwnerTable.Endpoint(ip: "::1", port: 8080))
        #expect(try Self.owners("::1", 0xC350) == [1001])
        #expect(try Self.owners("127.0.0.1", 0xC350).isEmpty, "::1 is not 127.0.0.1")
    }

    @Test("An IPv4 peer is found in tcp6 as ::ffff:a.b.c.d, whichever way its address is written")
    func v4Mapped() throws {
        #expect(try Self.owners("127.0.0.1", 0xC351) == [1002])
        #expect(try Self.owners("::ffff:127.0.0.1", 0xC351) == [1002])
    }
    #endif

    @Test("Only connected sockets count: a listener and one in TIME_WAIT name no owner")
    func onlyEstablished() throws {
        #expect(try Self.owners("127.0.0.1", 0xD6E3).isEmpty)
        #expect(try Self.owners("0.0.0.0", 0).isEmpty)
    }

    @Test("Bad input names no endpoint")
    func badInput() {
        #expect(SocketOwnerTable.Endpoint(procField: "0100007F") == nil)
        #expect(SocketOwnerTable.Endpoint(procField: "0100007:1F90") == nil)
        #expect(SocketOwnerTable.Endpoint(procField: "0100007G:1F90") == nil)
        #expect(SocketOwnerTable.Endpoint(ip: "localhost", port: 1) == nil)
        #expect(SocketOwnerTable.Endpoint(ip: "127.0.0.1", port: 70000) == nil)
    }
}
#endif
