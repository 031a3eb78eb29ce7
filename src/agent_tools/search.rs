//! `search_skills`: ranked hits from the snapshot's index, with their
//! `skill://` URIs, and the disabled skills that match named apart.

use super::{
    at_least_one, too_long, ArgumentError, Arguments, ToolAnswer, SEARCH_DEFAULT_LIMIT,
    SEARCH_MAX_LIMIT,
};
use crate::catalog::Catalog;
use crate::query;
use serde_json::{json, Value};

/// Answer `search_skills`. `uri_of` adds each hit's resource URI when the
/// caller serves one.
pub fn search_skills(
    searchable: &crate::search::Searchable,
    arguments: &Arguments<'_>,
    uri_of: &dyn Fn(&crate::entry::Skill) -> Option<String>,
    everything: Option<&crate::search::Searchable>,
) -> Result<ToolAnswer, ArgumentError> {
    let catalog = searchable.catalog();
    let query = arguments.required_string("query")?;
    let limit = arguments.whole_number("limit")?;
    if let Some(answer) = too_long("query", query) {
        return Ok(answer);
    }
    if query.trim().is_empty() {
        return Ok(ToolAnswer::error(
            "`query` is empty — describe the task in a few words",
        ));
    }
    let advice = format!("leave it out for the default ({SEARCH_DEFAULT_LIMIT})");
    let limit = match at_least_one("limit", limit, &advice) {
        Ok(limit) => limit,
        Err(answer) => return Ok(answer),
    };
    let limit = limit.unwrap_or(SEARCH_DEFAULT_LIMIT).min(SEARCH_MAX_LIMIT);
    let (results, warming) = searchable.search_ready(
        query,
        &crate::search::SearchOptions::skills(limit),
        crate::search::READY_GRACE,
    );
    let mut value = crate::search::results_json(catalog, &results, query::PathStyle::Absolute);
    if let Some(hits) = value.get_mut("results").and_then(Value::as_array_mut) {
        for (hit, found) in hits.iter_mut().zip(&results.hits) {
            if let Some(uri) = uri_of(&catalog.skills()[found.index]) {
                hit["uri"] = uri.into();
            }
        }
    }
    // Disabled skills that match are named apart, never as results: a
    // model cannot read them, but can ask the user to enable one.
    let disabled = everything
        .map(|everything| disabled_matches(catalog, everything, query, limit))
        .unwrap_or_default();
    if !disabled.is_empty() {
        if let Some(terms) = value
            .get_mut("unmatched_terms")
            .and_then(Value::as_array_mut)
        {
            terms.retain(|t| {
                t.as_str()
                    .is_none_or(|t| catalog.disabled_skill(t).is_none())
            });
        }
        value["disabled_matches"] = json!(disabled
            .iter()
            .map(|s| json!({"name": s.name, "id": s.id, "namespace": s.namespace, "description": s.description}))
            .collect::<Vec<_>>());
        value["disabled_note"] = json!(
            "disabled_matches are disabled by configuration: they cannot be read or grepped. If one is clearly what the task needs, call request_skill_enable with its id and a suggest_reason; the user decides."
        );
    }
    if warming {
        value["mode"] = json!("lexical");
        value["note"] = json!(crate::search::WARMING_NOTE);
    } else if let Some(note) = searchable.lexical_note() {
        value["mode"] = json!("lexical");
        value["note"] = json!(note);
    }
    // The same words as the CLI's text answer.
    if let Some(advice) = crate::search::advice(&results, Some(crate::search::EntryKind::Skill)) {
        value["advice"] = json!(advice);
    }
    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
    Ok(ToolAnswer::ok(text))
}

/// The disabled skills of `catalog` that the same search finds among the
/// best `limit` of `everything` (the catalog with them enabled).
fn disabled_matches<'a>(
    catalog: &Catalog,
    everything: &'a crate::search::Searchable,
    query: &str,
    limit: usize,
) -> Vec<&'a crate::entry::Skill> {
    let (wider, _) = everything.search_ready(
        query,
        &crate::search::SearchOptions::skills(limit),
        crate::search::READY_GRACE,
    );
    if wider.no_match && crate::search::select_list(query).is_none() {
        return Vec::new();
    }
    wider
        .hits
        .iter()
        .map(|hit| everything.catalog().skills()[hit.index].as_ref())
        .filter(|skill| {
            catalog
                .disabled_skills()
                .iter()
                .any(|d| d.path == skill.path)
        })
        .collect()
}
