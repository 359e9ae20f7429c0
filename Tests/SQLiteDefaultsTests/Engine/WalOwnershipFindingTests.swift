@testable import SQLiteDefaults
import Testing
import TestScheduling

/// A finding of `integrity_check` through a crashed writer's log is either damage (the log may
/// be set aside) or a page SQLite could not read (the disk failing: the open fails and the log
/// stays). SQLite words the second in two ways.
@Suite("The log guard tells a failed read from damage", .offThePool)
struct WalOwnershipFindingTests {
    @Test("a b-tree page, a free-list page and a pointer-map page that could not be read are I/O errors")
    func unreadablePages() {
        let ioError = SQLiteResultKind.ioErrorCode
        #expect(WalOwnership.unreadablePageCode("*** in database main ***\nPage 10: unable to get the page. error code=266") == 266)
        #expect(WalOwnership.unreadablePageCode("*** in database main ***\nMain freelist: failed to get page 17") == ioError)
        #expect(WalOwnership.unreadablePageCode("*** in database main ***\nFailed to read ptrmap key=5") == ioError)
    }

    @Test("damage is not a failed read")
    func damage() {
        #expect(WalOwnership.unreadablePageCode("*** in database main ***\nPage 5: btreeInitPage() returns error code 11") == nil)
        #expect(WalOwnership.unreadablePageCode("*** in database main ***\nPage 7: unable to get the page. error code=11") == nil)
        #expect(WalOwnership.unreadablePageCode("row 3 missing from index sqlite_autoindex_defaults_1") == nil)
        #expect(WalOwnership.unreadablePageCode("*** in database main ***\nMain freelist: invalid page number 99") == nil)
    }
}
