import Vapor

/// The operator the app's own authentication recognised.
struct Admin: Authenticatable {
    let name: String
}

/// The example's own authentication for its admin routes: `Authorization: Bearer TOKEN`. A real
/// app would use its sessions or SSO here; the console trusts whatever stands in front of it.
struct AdminAuthenticator: AsyncBearerAuthenticator {
    let token: String

    func authenticate(bearer: BearerAuthorization, for request: Request) async throws {
        if bearer.token == token { request.auth.login(Admin(name: "admin")) }
    }
}
