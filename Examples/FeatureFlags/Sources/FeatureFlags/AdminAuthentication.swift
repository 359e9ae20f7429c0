import Hummingbird

/// The example's own authentication for its admin routes: `Authorization: Bearer TOKEN`.
/// A real app would use its session or SSO middleware here; the console trusts whatever
/// stands in front of it.
struct AdminAuthentication<Context: RequestContext>: RouterMiddleware {
    let token: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], header == "Bearer " + token else {
            throw HTTPError(.unauthorized, message: "admin token required\n")
        }
        return try await next(request, context)
    }
}
