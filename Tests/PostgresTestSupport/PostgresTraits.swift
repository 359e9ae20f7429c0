import Testing

extension Trait where Self == ConditionTrait {
    /// Skips, saying what to install, where PostgreSQL's server programs are missing.
    public static var requiresPostgreSQL: Self {
        .enabled("needs PostgreSQL's server programs: apt-get install postgresql") {
            (try? PostgresInstallation.locate()) != nil
        }
    }
}
