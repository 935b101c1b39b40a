// Enums that may gain variants are `#[non_exhaustive]`: a `match` outside
// the crate needs a `_` arm, so a new variant is not a breaking change.
use schema_core::Step;
use schema_core::{AsymmetryKind, Error, IndexOrigin, Keep, OnViolations, Relation};

fn error(e: &Error) -> &'static str {
    match e {
        Error::Unreachable { .. } => "unreachable",
    }
}

fn action(a: &Step) -> &'static str {
    match a {
        Step::CreateCollection { .. }
        | Step::UpdateValidator { .. }
        | Step::ValidationLevel { .. }
        | Step::CreateIndex { .. }
        | Step::ConflictingIndex { .. }
        | Step::ExtraIndex { .. } => "step",
    }
}

fn origin(o: &IndexOrigin) -> &'static str {
    match o {
        IndexOrigin::Reference(_) | IndexOrigin::ManyToMany(_) | IndexOrigin::Declared => "origin",
    }
}

fn on_violations(o: OnViolations) -> &'static str {
    match o {
        OnViolations::Refuse | OnViolations::ValidateModerate | OnViolations::Apply => "choice",
    }
}

fn relation(r: &Relation) -> &'static str {
    match r {
        Relation::Embed { .. } | Relation::Reference { .. } | Relation::ManyToMany { .. } => "rel",
    }
}

fn asymmetry(k: AsymmetryKind) -> &'static str {
    match k {
        AsymmetryKind::MissingOnRight
        | AsymmetryKind::MissingOnLeft
        | AsymmetryKind::RightMissing
        | AsymmetryKind::LeftMissing => "kind",
    }
}

fn keep(k: Keep) -> &'static str {
    match k {
        Keep::Newest | Keep::Oldest => "keep",
    }
}

fn main() {}
