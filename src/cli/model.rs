//! The semantic mode on the command line: the `--model` flags that
//! `search` and `serve` share (one function turns them into a loaded
//! model), and `skilldex model fetch`.
//!
//! Where the model comes from, first found: `--model DIR`,
//! `SKILLDEX_MODEL`, `search.model` of skilldex.yaml. `--no-model` searches
//! by words whatever is configured. Vectors are cached in `--cache-dir`,
//! else `SKILLDEX_CACHE_DIR`, else `$XDG_CACHE_HOME/skilldex`, else
//! `~/.cache/skilldex`.

use super::{Cli, GlobalArgs};
use clap::{Args, Subcommand};
use skilldex::embed::fetch::{self, DEFAULT_ENDPOINT, DEFAULT_REPO};
use skilldex::search::SemanticModel;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// The semantic mode's flags, on `search` and `serve`.
#[derive(Debug, Args)]
pub(super) struct ModelArgs {
    /// Rank by meaning too, with the sentence-transformers model in DIR
    /// (config.json, tokenizer.json, model.safetensors; `skilldex model
    /// fetch` downloads one) [default: SKILLDEX_MODEL, else search.model of
    /// skilldex.yaml].
    #[arg(long, value_name = "DIR")]
    model: Option<PathBuf>,
    /// Search by words only, even when a model is configured.
    #[arg(long, conflicts_with = "model")]
    no_model: bool,
    /// Where the skills' vectors are cached [default: SKILLDEX_CACHE_DIR,
    /// else $XDG_CACHE_HOME/skilldex, else ~/.cache/skilldex].
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// The cosine's share of the semantic ranking, 0 to 1 (to measure
    /// one mix against another with `eval`).
    #[arg(long, value_name = "W")]
    semantic_weight: Option<f32>,
}

/// The model these flags and the configuration name, loaded; None when
/// none is named (or `--no-model`). A model that does not load is an
/// error that says how to search without it.
pub(super) fn load_model(
    global: &GlobalArgs,
    args: &ModelArgs,
) -> anyhow::Result<Option<Arc<SemanticModel>>> {
    try_load_model(global, args)?
        .map_err(|error| anyhow::anyhow!("{error} (`--no-model` searches by words without it)"))
}

/// For `serve`: a model that does not load is logged by the caller and
/// the server searches by words (`Ok(Err(why))`), so one broken file does
/// not take search down; the configuration's own errors stay errors.
pub(super) fn serve_model(
    global: &GlobalArgs,
    args: &ModelArgs,
) -> anyhow::Result<Result<Option<Arc<SemanticModel>>, String>> {
    Ok(try_load_model(global, args)?.map_err(|error| error.to_string()))
}

/// The model, or why it does not load (inside: the configuration's errors
/// outside).
fn try_load_model(
    global: &GlobalArgs,
    args: &ModelArgs,
) -> anyhow::Result<Result<Option<Arc<SemanticModel>>, skilldex::embed::EmbedError>> {
    if args.no_model {
        return Ok(Ok(None));
    }
    let (dir, explicit) = match &args.model {
        Some(dir) => (dir.clone(), true),
        None => match super::settings(global)?.search_model {
            Some(dir) => (dir, false),
            None => return Ok(Ok(None)),
        },
    };
    let cache = args.cache_dir.clone().or_else(skilldex::embed::cache_dir);
    let loaded =
        SemanticModel::load(&dir, cache.as_deref()).map(|model| match args.semantic_weight {
            Some(weight) => model.with_weight(weight),
            None => model,
        });
    Ok(match loaded {
        Ok(model) => Ok(Some(Arc::new(model))),
        // A configured model in a build without the feature: say so once
        // and search by words, as without a model.
        Err(skilldex::embed::EmbedError::NotBuilt) if !explicit => {
            if !global.quiet {
                say!("skilldex: a model is configured ({}), but this skilldex was built without semantic search; searching by words", dir.display());
            }
            Ok(None)
        }
        Err(error) => Err(error),
    })
}

/// Report what building the vectors did (stderr), or why it failed.
pub(super) fn report_embedding(global: &GlobalArgs, stats: &skilldex::search::EmbedStats) {
    if global.quiet {
        return;
    }
    if stats.embedded > 0 {
        say!(
            "skilldex: embedded {} of {} {} (the others were cached)",
            stats.embedded,
            stats.entries,
            if stats.tools > 0 {
                "skills and tools"
            } else {
                "skills"
            }
        );
    }
    if let Some(error) = &stats.cache_error {
        say!(
            "skilldex: could not write the embedding cache ({error}); the next search embeds again"
        );
    }
}

#[derive(Debug, Args)]
pub(super) struct ModelCommandArgs {
    #[command(subcommand)]
    command: ModelCommand,
}

#[derive(Debug, Subcommand)]
enum ModelCommand {
    /// Download a sentence-transformers model (config.json, tokenizer.json,
    /// model.safetensors) from the Hugging Face hub for `--model`.
    Fetch(FetchArgs),
}

#[derive(Debug, Args)]
struct FetchArgs {
    /// The folder to write [default: $XDG_DATA_HOME/skilldex/models/NAME,
    /// else ~/.local/share/skilldex/models/NAME].
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// The model repository on the hub.
    #[arg(long, value_name = "OWNER/NAME", default_value = DEFAULT_REPO)]
    repo: String,
    /// The branch, tag or commit.
    #[arg(long, value_name = "REV", default_value = "main")]
    revision: String,
    /// Download files already there again.
    #[arg(long)]
    force: bool,
}

pub(super) fn model_command(cli: &Cli, args: &ModelCommandArgs) -> anyhow::Result<ExitCode> {
    match &args.command {
        ModelCommand::Fetch(args) => fetch_command(cli, args),
    }
}

fn default_model_dir(repo: &str) -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let data = var("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".local").join("share")))?;
    let name = repo.rsplit('/').next().unwrap_or(repo);
    Some(data.join("skilldex").join("models").join(name))
}

fn fetch_command(cli: &Cli, args: &FetchArgs) -> anyhow::Result<ExitCode> {
    let dir = match args.dir.clone().or_else(|| default_model_dir(&args.repo)) {
        Some(dir) => dir,
        None => anyhow::bail!("no folder to write to (HOME is not set) — pass --dir DIR"),
    };
    let endpoint = std::env::var("HF_ENDPOINT")
        .ok()
        .filter(|e| !e.is_empty())
        .unwrap_or_else(|| DEFAULT_ENDPOINT.to_string());
    let transport = transport()?;
    if !cli.global.quiet {
        say!("skilldex: fetching {} into {}", args.repo, dir.display());
    }
    let fetched = fetch::fetch_model(
        transport.as_ref(),
        &endpoint,
        &args.repo,
        &args.revision,
        &dir,
        args.force,
    )?;
    if !cli.global.quiet {
        for file in &fetched {
            let what = if file.downloaded {
                "downloaded"
            } else {
                "kept"
            };
            say!(
                "skilldex: {what} {} ({} bytes)",
                file.path.display(),
                skilldex::text::thousands(file.bytes as usize)
            );
        }
    }
    // The folder is the data: a script can pass it to --model.
    {
        use std::io::Write;
        let mut out = super::commands::stdout();
        writeln!(out, "{}", dir.display())?;
        out.flush()?;
    }
    if !cli.global.quiet {
        say!(
            "skilldex: search with it: `skilldex search --model {} …`, SKILLDEX_MODEL, or `search: {{model: …}}` in skilldex.yaml",
            super::commands::shell_word(&dir.display().to_string())
        );
    }
    check(&dir)?;
    Ok(ExitCode::SUCCESS)
}

/// A fetched folder that does not load (a repository of another kind of
/// model) is reported now, not at the first search.
fn check(dir: &Path) -> anyhow::Result<()> {
    skilldex::embed::check_model_dir(dir)?;
    Ok(())
}

#[cfg(feature = "semantic")]
fn transport() -> anyhow::Result<Box<dyn fetch::Transport>> {
    Ok(Box::new(fetch::HttpTransport::default()))
}

#[cfg(not(feature = "semantic"))]
fn transport() -> anyhow::Result<Box<dyn fetch::Transport>> {
    Err(skilldex::embed::EmbedError::NotBuilt.into())
}
