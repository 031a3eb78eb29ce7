//! Editing a configuration file in place: persisting "enable this skill
//! always" deletes its entry from `disabled` (or lists it under `enabled`),
//! keeping every other byte, and writes the file atomically the way its
//! owner set it up.

use super::lists::{find_list, yaml_scalar, Layout};
use super::load::{parse, read_text, ParseError, UNREADABLE};
use super::{ConfigError, FileSettings, Settings};
use std::path::{Path, PathBuf};

pub fn names_skill(entry: &str, skill: &crate::entry::Skill) -> bool {
    skill.answers_to(entry)
}

/// What persisting "enable always" changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Persisted {
    /// The files edited so that they no longer disable the skill.
    pub files: Vec<PathBuf>,
    /// True when `SKILLDEX_DISABLED` also names the skill (no file can
    /// change that).
    pub still_disabled_by_environment: bool,
}

/// Make every file in `settings` that disables `skill` stop disabling it
/// (see `enable_in_text`); nothing else in those files changes.
pub fn persist_enable(
    settings: &Settings,
    skill: &crate::entry::Skill,
) -> Result<Persisted, ConfigError> {
    let files = persist_edits(
        settings,
        |file| file.disabled.iter().any(|e| names_skill(e, skill)),
        |text| enable_in_text(text, |entry| names_skill(entry, skill)),
    )?;
    Ok(Persisted {
        files,
        still_disabled_by_environment: settings
            .disabled_by_environment
            .iter()
            .any(|e| names_skill(e, skill)),
    })
}

/// Rewrite with `edit` every file in `settings` whose parsed settings
/// `applies` accepts, and return the files whose text changed. The one
/// loop behind both "enable always" edits (a skill, an MCP server).
fn persist_edits(
    settings: &Settings,
    applies: impl Fn(&FileSettings) -> bool,
    edit: impl Fn(&str) -> Result<String, EditError>,
) -> Result<Vec<PathBuf>, ConfigError> {
    let mut changed = Vec::new();
    for file in &settings.files {
        if !applies(&file.settings) {
            continue;
        }
        if edit_file(&file.path, &edit)? {
            changed.push(file.path.clone());
        }
    }
    Ok(changed)
}

/// Edit the configuration file `path` with `edit` (its text → the new
/// text) and write the result when it differs; true when it was written.
/// Edits of one file never interleave: the reading, editing and writing
/// happen under a lock, within this process (several installs of one
/// session at once) and across processes (an advisory lock on the file's
/// folder, which a rename does not replace), so no edit is lost.
pub(super) fn edit_file(
    path: &Path,
    edit: impl FnOnce(&str) -> Result<String, EditError>,
) -> Result<bool, ConfigError> {
    static EDITS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _in_process = EDITS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    #[cfg(unix)]
    let _across_processes = lock_folder_of(path);
    let text = read_text(path, UNREADABLE)?;
    let new_text = edit(&text).map_err(|error| ConfigError::Edit {
        path: path.to_path_buf(),
        error,
    })?;
    if new_text == text {
        return Ok(false);
    }
    write_atomically(path, &new_text)?;
    Ok(true)
}

/// An exclusive advisory lock on the folder of the file `path` leads to,
/// held while the returned handle lives; `None` when the folder cannot be
/// opened or locked within [`LOCK_PATIENCE`] (another process holding it
/// that long: the edit then goes on under the in-process lock only, so a
/// stuck process never stalls the caller).
#[cfg(unix)]
fn lock_folder_of(path: &Path) -> Option<std::fs::File> {
    use rustix::fs::{flock, FlockOperation};
    let target = path.canonicalize().ok()?;
    let folder = std::fs::File::open(target.parent()?).ok()?;
    let deadline = std::time::Instant::now() + LOCK_PATIENCE;
    loop {
        match flock(&folder, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Some(folder),
            Err(rustix::io::Errno::WOULDBLOCK) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(_) => return None,
        }
    }
}

/// How long an edit waits for another process's edit of the same file.
#[cfg(unix)]
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);

/// Replace the text of the configuration file `path` the way its owner
/// set it up: through a symlink the file it points to is edited (the link
/// stays a link), its permissions are kept, and the new text is written
/// to a new file beside it and renamed over it, so a reader sees the old
/// text or the new, never half. A file with other hard links is rewritten
/// in place instead (a rename would split the links).
pub(super) fn write_atomically(path: &Path, text: &str) -> Result<(), ConfigError> {
    let error = |error| ConfigError::Write {
        path: path.to_path_buf(),
        error,
    };
    let target = path.canonicalize().map_err(error)?;
    let metadata = std::fs::metadata(&target).map_err(error)?;
    #[cfg(unix)]
    let (mode, links) = {
        use std::os::unix::fs::MetadataExt;
        (metadata.mode() & 0o7777, metadata.nlink())
    };
    #[cfg(not(unix))]
    let links = 1;
    if links > 1 {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&target)
            .map_err(error)?;
        std::io::Write::write_all(&mut file, text.as_bytes()).map_err(error)?;
        return file.sync_all().map_err(error);
    }
    let temporary = crate::paths::temporary_beside(&target);
    let mut options = std::fs::OpenOptions::new();
    // A new file, never one planted under that name (nor a link's target).
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
    let written = (|| {
        let mut file = options.open(&temporary)?;
        std::io::Write::write_all(&mut file, text.as_bytes())?;
        // The mode asked at creation is cut by the umask: set it again.
        file.set_permissions(metadata.permissions())?;
        file.sync_all()?;
        std::fs::rename(&temporary, &target)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written.map_err(error)
}

/// Why `enable_in_text` could not edit a text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The text is not a configuration to begin with.
    #[error(transparent)]
    Invalid(#[from] ParseError),
    #[error("neither its `disabled` list nor its `enabled` list is written in a layout skilldex can edit exactly; remove `{entry}` from `disabled`")]
    NoEditableList { entry: String },
    #[error("editing the `disabled` or `enabled` list would change other settings")]
    WouldChangeOtherSettings,
    /// A key written in a layout the edit cannot extend exactly.
    #[error("`{key}` is not written in a layout skilldex can edit exactly; {what} by hand")]
    NotEditable { key: &'static str, what: String },
}

/// The text of a `skilldex.yaml` in which no `disabled` entry accepted by
/// `names` disables anything any more, edited the way a person would:
///
/// - `disabled: [a, b]  # note` loses just the item and its comma
///   (`[a]  # note`; the last one leaves `[]`);
/// - a block list loses just the `- item` line (the last one leaves
///   `disabled: []`);
/// - where the list is written in a way this cannot edit exactly (anchors,
///   nested values, …), the entry is appended to the file's `enabled` list
///   instead, in that list's style, or as a new `enabled: [entry]` line at
///   the end (a file's `enabled` takes away its own `disabled` entries).
///
/// Every other byte stays as it was. The result is parsed to check that
/// only the intended list changed; if not, the error says to edit by hand.
pub fn enable_in_text(text: &str, names: impl Fn(&str) -> bool) -> Result<String, EditError> {
    let before = parse(text)?;
    let gone: Vec<String> = before
        .disabled
        .iter()
        .filter(|entry| names(entry))
        .cloned()
        .collect();
    if gone.is_empty() {
        return Ok(text.to_string());
    }
    let reads_as =
        |text: &str, expected: &FileSettings| parse(text).ok().as_ref() == Some(expected);
    let removed = FileSettings {
        disabled: before
            .disabled
            .iter()
            .filter(|entry| !names(entry))
            .cloned()
            .collect(),
        ..before.clone()
    };
    if let Some(out) = remove_entries(text, "disabled", &names) {
        if reads_as(&out, &removed) {
            return Ok(out);
        }
    }
    let mut expected = before;
    let mut out = text.to_string();
    for entry in gone {
        if expected.enabled.contains(&entry) {
            continue;
        }
        out = append_entry(&out, "enabled", &entry).ok_or_else(|| EditError::NoEditableList {
            entry: entry.clone(),
        })?;
        expected.enabled.push(entry);
    }
    if reads_as(&out, &expected) {
        Ok(out)
    } else {
        Err(EditError::WouldChangeOtherSettings)
    }
}

/// `text` without the items of the top-level list `key` that `names`
/// accepts; `None` when the list is not written in a layout this can
/// edit exactly.
fn remove_entries(text: &str, key: &str, names: &impl Fn(&str) -> bool) -> Option<String> {
    let mut text = text.to_string();
    // One item at a time: the positions change with each removal.
    loop {
        let list = find_list(&text, key).ok()??;
        let Some(index) = list.items.iter().position(|item| names(&item.value)) else {
            return Some(text);
        };
        let item = &list.items[index];
        match list.layout {
            Layout::Flow { open, close } => {
                // The item and the separator after it; the last item takes
                // the separator before it; a lone item leaves `[]`.
                let range = if let Some(next) = list.items.get(index + 1) {
                    item.start..next.start
                } else if let Some(previous) = index.checked_sub(1).map(|i| &list.items[i]) {
                    previous.end..item.end
                } else {
                    open + 1..close
                };
                text.replace_range(range, "");
            }
            Layout::Block => {
                text.replace_range(item.line_start..item.line_end, "");
                if list.items.len() == 1 {
                    text.insert_str(list.after_colon, " []");
                }
            }
            Layout::Empty => return None,
        }
    }
}

/// `text` with `value` appended to the top-level list `key` in the style
/// the list is written in, or with a new `key: [value]` line at the end.
pub(super) fn append_entry(text: &str, key: &str, value: &str) -> Option<String> {
    let scalar = yaml_scalar(value);
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut out = text.to_string();
    match find_list(text, key).ok()? {
        None => {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push_str(newline);
            }
            out.push_str(&format!("{key}: [{scalar}]{newline}"));
        }
        Some(list) => match (list.layout, list.items.last()) {
            (Layout::Flow { open, close }, None) => {
                out.replace_range(open + 1..close, &scalar);
            }
            (Layout::Flow { .. }, Some(last)) => out.insert_str(last.end, &format!(", {scalar}")),
            (Layout::Block, Some(last)) => {
                // The last item's line again: same indent, same dash.
                let mut line = text[last.line_start..last.start].to_string();
                line.push_str(&scalar);
                line.push_str(newline);
                if !text[..last.line_end].ends_with('\n') {
                    line.insert_str(0, newline);
                }
                out.insert_str(last.line_end, &line);
            }
            (Layout::Empty, _) | (Layout::Block, None) => {
                out.insert_str(list.after_colon, &format!(" [{scalar}]"));
            }
        },
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_rewrite_edits_the_linked_file_and_keeps_its_mode_and_hard_links() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.yaml");
        std::fs::write(&real, "disabled: [a]\n").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("skilldex.yaml");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomically(&link, "disabled: []\n").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "disabled: []\n");
        assert_eq!(std::fs::metadata(&real).unwrap().mode() & 0o777, 0o600);
        let hard = dir.path().join("hard.yaml");
        std::fs::hard_link(&real, &hard).unwrap();
        write_atomically(&hard, "enabled: [b]\n").unwrap();
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "enabled: [b]\n");
        assert_eq!(std::fs::metadata(&hard).unwrap().nlink(), 2);
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 3, "no temporary file is left behind");
    }

    /// `enable_in_text` for the entry `csv-cleanup` (by name or id).
    fn enable(text: &str) -> String {
        enable_in_text(text, |e| e == "csv-cleanup" || e == "data/csv-cleanup")
            .unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    #[test]
    fn enabling_edits_a_flow_list_in_place() {
        let cases = [
            // The item and its comma go; the comment stays.
            (
                "disabled: [csv-cleanup, git-bisect]  # two\n",
                "disabled: [git-bisect]  # two\n",
            ),
            (
                "# mine\ndisabled: [git-bisect, csv-cleanup, pdf]   # three\nformat: xml\n",
                "# mine\ndisabled: [git-bisect, pdf]   # three\nformat: xml\n",
            ),
            // The last item takes the comma before it.
            (
                "disabled: [git-bisect, csv-cleanup]\n",
                "disabled: [git-bisect]\n",
            ),
            // The only item leaves `[]`, comment and all.
            (
                "disabled: [csv-cleanup]  # proj\nbudget_tokens: 300\n",
                "disabled: []  # proj\nbudget_tokens: 300\n",
            ),
            ("disabled: [ csv-cleanup ]", "disabled: []"),
            // Quoted names, either quote.
            (
                "disabled: [\"csv-cleanup\", 'git-bisect']  # q\n",
                "disabled: ['git-bisect']  # q\n",
            ),
            (
                "disabled: ['git-bisect', \"data/csv-cleanup\"]\n",
                "disabled: ['git-bisect']\n",
            ),
            // Every entry naming the skill, by name or id.
            (
                "disabled: [data/csv-cleanup, pdf, csv-cleanup]\n",
                "disabled: [pdf]\n",
            ),
            // Over several lines, with a trailing comma.
            (
                "disabled: [\n  csv-cleanup,\n  pdf,\n]\nformat: xml\n",
                "disabled: [\n  pdf,\n]\nformat: xml\n",
            ),
            (
                "disabled: [csv-cleanup, pdf]\r\nformat: xml\r\n",
                "disabled: [pdf]\r\nformat: xml\r\n",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(enable(text), expected, "from {text:?}");
        }
    }

    #[test]
    fn enabling_edits_a_block_list_in_place() {
        let cases = [
            // Just the `- item` line goes; comments and blank lines stay.
            (
                "# my config\nroots: [skills]   # keep\ndisabled:\n  - git-bisect\n  # a note\n  - csv-cleanup   # this one\n\nformat: xml\n",
                "# my config\nroots: [skills]   # keep\ndisabled:\n  - git-bisect\n  # a note\n\nformat: xml\n",
            ),
            (
                "disabled:\n- csv-cleanup\n- \"pdf\"\nformat: xml\n",
                "disabled:\n- \"pdf\"\nformat: xml\n",
            ),
            (
                "disabled:\n    - 'csv-cleanup'\n    - pdf",
                "disabled:\n    - pdf",
            ),
            // The last item leaves `disabled: []`, with the key's comment.
            (
                "# my config\ndisabled:   # off for now\n  - csv-cleanup\nbudget_tokens: 3000\n",
                "# my config\ndisabled: []   # off for now\nbudget_tokens: 3000\n",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(enable(text), expected, "from {text:?}");
        }
    }

    #[test]
    fn enabling_lists_under_enabled_what_it_cannot_remove() {
        let cases = [
            // An anchored list: add a new `enabled` key at the end.
            (
                "disabled: &off [csv-cleanup, pdf]\nformat: xml",
                "disabled: &off [csv-cleanup, pdf]\nformat: xml\nenabled: [csv-cleanup]\n",
            ),
            // An `enabled` list already there keeps its style.
            (
                "disabled: &off [csv-cleanup]\nenabled: [pdf]  # back on\n",
                "disabled: &off [csv-cleanup]\nenabled: [pdf, csv-cleanup]  # back on\n",
            ),
            (
                "disabled: &off [csv-cleanup]\nenabled: []\n",
                "disabled: &off [csv-cleanup]\nenabled: [csv-cleanup]\n",
            ),
            (
                "disabled: &off [csv-cleanup]\nenabled:\n  - pdf   # a\nformat: xml\n",
                "disabled: &off [csv-cleanup]\nenabled:\n  - pdf   # a\n  - csv-cleanup\nformat: xml\n",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(enable(text), expected, "from {text:?}");
        }
        // A name that needs quotes gets them.
        let out = enable_in_text("disabled: !!seq [\"yes\"]\n", |e| e == "yes").unwrap();
        assert_eq!(out, "disabled: !!seq [\"yes\"]\nenabled: [\"yes\"]\n");
        // Nothing names the skill: nothing changes.
        let text = "disabled: [pdf]  # c\n";
        assert_eq!(enable(text), text);
    }
}

/// Make every file in `settings` that disables the MCP server `name`
/// (`enabled: false` in its `mcp_servers` entry) stop disabling it; see
/// [`enable_server_in_text`]. Returns the files edited.
pub fn persist_server_enable(settings: &Settings, name: &str) -> Result<Vec<PathBuf>, ConfigError> {
    persist_edits(
        settings,
        |file| {
            file.mcp_servers
                .get(name)
                .is_some_and(|s| s.enabled == Some(false))
        },
        |text| enable_server_in_text(text, name),
    )
}

/// The text of a `skilldex.yaml` in which the MCP server `name` is no
/// longer disabled: its `enabled: false` line is deleted (block style) or
/// its `enabled: false` turned into `enabled: true` (flow style). Each
/// candidate edit is parsed, and the one taken must change nothing but
/// that server's `enabled`; every other byte stays as it was.
pub fn enable_server_in_text(text: &str, name: &str) -> Result<String, EditError> {
    let before = parse(text)?;
    let mut expected = before.clone();
    match expected.mcp_servers.get_mut(name) {
        Some(server) if server.enabled == Some(false) => server.enabled = None,
        _ => return Ok(text.to_string()),
    }
    let fits = |candidate: &str, enabled: Option<bool>| {
        let mut wanted = expected.clone();
        if let Some(server) = wanted.mcp_servers.get_mut(name) {
            server.enabled = enabled;
        }
        parse(candidate).is_ok_and(|after| after == wanted)
    };
    // Block style: delete one `enabled: false` line.
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let end = start + line.len();
        let bare = line.split('#').next().unwrap_or("").trim();
        if bare.replace(' ', "") == "enabled:false" {
            let candidate = format!("{}{}", &text[..start], &text[end..]);
            if fits(&candidate, None) {
                return Ok(candidate);
            }
        }
        start = end;
    }
    // Flow style (or a line the deletion would break): say `true` instead.
    for (at, _) in text.match_indices("false") {
        let candidate = format!("{}true{}", &text[..at], &text[at + "false".len()..]);
        if fits(&candidate, Some(true)) {
            return Ok(candidate);
        }
    }
    Err(EditError::WouldChangeOtherSettings)
}

#[cfg(test)]
mod server_tests {
    use super::enable_server_in_text;

    #[test]
    fn a_disabled_server_is_enabled_keeping_every_other_byte() {
        let text = "# team config\nmcp_servers:\n  lab:\n    command: python3  # local\n    enabled: false   # off for now\n  office:\n    command: node\n    enabled: false\n";
        let edited = enable_server_in_text(text, "lab").unwrap();
        assert_eq!(
            edited,
            "# team config\nmcp_servers:\n  lab:\n    command: python3  # local\n  office:\n    command: node\n    enabled: false\n"
        );
        let flow = "mcp_servers: {lab: {command: x, enabled: false}, office: {command: y, enabled: false}}\n";
        assert_eq!(
            enable_server_in_text(flow, "office").unwrap(),
            "mcp_servers: {lab: {command: x, enabled: false}, office: {command: y, enabled: true}}\n"
        );
        let untouched = "mcp_servers:\n  lab:\n    command: x\n";
        assert_eq!(enable_server_in_text(untouched, "lab").unwrap(), untouched);
    }
}
