//! fixdex repair: the repair front end. No public API yet (issue 4).
