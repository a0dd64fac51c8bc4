//! Front ends: shader inputs turned into a validated naga [`naga::Module`].

pub mod wgsl;

/// Options shared by every front end.
#[derive(Clone, Debug, Default)]
pub struct SourceOptions {
    /// The name used for the source in error messages (usually its path); `<input>` when empty.
    pub name: String,
    /// The compute entry point to use; `None` picks the only one.
    pub entry: Option<String>,
}

impl SourceOptions {
    /// Options naming the source `name` (its path), with the default entry point.
    pub fn named(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            entry: None,
        }
    }

    /// Sets the entry point.
    pub fn with_entry(mut self, entry: Option<String>) -> Self {
        self.entry = entry;
        self
    }

    /// The name to show in error messages.
    pub(crate) fn display_name(&self) -> &str {
        if self.name.is_empty() {
            "<input>"
        } else {
            &self.name
        }
    }
}
