//! `request_skill_enable`: ask the user through MCP elicitation (a form
//! request on legacy sessions, an input request on 2026-07-28) and, on a
//! yes, enable the skill for the session and, for "always", in the
//! configuration file.

use super::{lock, SkilldexServer, View};
use crate::agent_tools::{self, Arguments, ToolAnswer};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationSchema, InputRequest, InputRequests, InputRequiredResult,
    MetaObject, ProtocolVersion, RequestMetaObject,
};
use rmcp::service::{ElicitationMode, RequestContext, RoleServer};
use rmcp::ErrorData as McpError;
use serde_json::{json, Map, Value};

/// Key of the one input request of `request_skill_enable` (2026-07-28).
const ENABLE_INPUT: &str = "enable";

impl SkilldexServer {
    pub(super) async fn request_enable(
        &self,
        request: &CallToolRequestParams,
        arguments: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
        view: &View,
    ) -> Result<CallToolResponse, McpError> {
        let checked =
            Arguments::new(agent_tools::REQUEST_SKILL_ENABLE, arguments).map_err(Self::invalid)?;
        let (skill, reason) =
            match agent_tools::enable_request(&view.catalog, &checked).map_err(Self::invalid)? {
                Ok(found) => found,
                Err(answer) => return Ok(Self::answer(answer).into()),
            };
        let id = skill.id.clone();
        let suggestion = Suggestion {
            tool_type: "skill",
            action: "enable",
            id: id.clone(),
            name: skill.name.clone(),
            description: skill.description.clone(),
            reason: reason.clone(),
        };
        let manual = format!(
            "removing it from the `disabled` list of skilldex.yaml{}",
            self.config_files_hint(skill)
        );
        let response = match self.ask(request, context, &suggestion, &manual).await? {
            Ok(response) => response,
            Err(answer) => return Ok(answer),
        };
        let confirmed = response.action == ElicitationAction::Accept;
        let persist = confirmed && wants_persist(&response);
        let mut answer = json!({
            "completed": false,
            "user_confirmed": confirmed,
            "name": id,
        });
        if confirmed {
            let mut notes = Vec::new();
            if persist {
                match &self.inner.settings {
                    Some(settings) => match crate::config::persist_enable(settings, skill) {
                        Ok(persisted) => {
                            if !persisted.files.is_empty() {
                                answer["persisted"] = json!(persisted
                                    .files
                                    .iter()
                                    .map(|p| p.display().to_string())
                                    .collect::<Vec<_>>());
                                self.log(&format!(
                                    "enabled `{id}` for good: edited {} so that it is no longer disabled",
                                    persisted
                                        .files
                                        .iter()
                                        .map(|p| p.display().to_string())
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                ));
                            }
                            if persisted.still_disabled_by_environment {
                                notes.push("SKILLDEX_DISABLED still names it, so it stays disabled in future sessions until that variable changes".to_string());
                            }
                        }
                        Err(error) => {
                            notes.push(format!("enabled for this session only: {error}"));
                        }
                    },
                    None => notes.push(
                        "enabled for this session only: no configuration file is in use"
                            .to_string(),
                    ),
                }
            }
            lock(&self.inner.state).enabled.insert(id.clone());
            self.invalidate();
            let now = self.view();
            answer["completed"] = json!(now.catalog.get(&id).is_some());
            if !notes.is_empty() {
                answer["note"] = json!(notes.join("; "));
            }
            let peer = context.peer.clone();
            self.notify_changed(Some(&peer)).await;
            self.log(&format!("the user enabled `{id}` for this session"));
        }
        Ok(Self::answer(ToolAnswer::ok(answer.to_string())).into())
    }

    pub(super) fn config_files_hint(&self, skill: &crate::entry::Skill) -> String {
        let files: Vec<String> = self
            .inner
            .settings
            .iter()
            .flat_map(|s| s.files.iter())
            .filter(|f| {
                f.settings
                    .disabled
                    .iter()
                    .any(|e| crate::config::names_skill(e, skill))
            })
            .map(|f| f.path.display().to_string())
            .collect();
        if files.is_empty() {
            String::new()
        } else {
            format!(" ({})", files.join(", "))
        }
    }

    /// Ask the user about `suggestion` through elicitation (a form request
    /// on legacy sessions; an input request on 2026-07-28, answered by the
    /// client's retry of the same call). `Ok(Err(answer))` is the tool's
    /// answer when there is no user answer (the client cannot elicit, or
    /// went away); `manual` says how the user would do it by hand.
    pub(super) async fn ask(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        suggestion: &Suggestion,
        manual: &str,
    ) -> Result<Result<ElicitResult, CallToolResponse>, McpError> {
        let Suggestion {
            tool_type,
            action,
            id,
            reason,
            ..
        } = suggestion;
        let what = if *tool_type == "skill" {
            "skill"
        } else {
            "MCP server"
        };
        let modern = context
            .protocol_version()
            .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        let state_token = if *tool_type == "skill" && *action == "enable" {
            format!("enable:{id}")
        } else {
            format!("{action}:{tool_type}:{id}")
        };
        let supports_form = if modern {
            context
                .client_capabilities()
                .is_some_and(|c| c.elicitation.is_some())
        } else {
            context
                .peer
                .supported_elicitation_modes()
                .contains(&ElicitationMode::Form)
        };
        if let Some(value) = request
            .input_responses
            .as_ref()
            .and_then(|r| r.get(ENABLE_INPUT))
        {
            if modern && request.request_state.as_deref() == Some(&state_token) {
                let response: ElicitResult =
                    serde_json::from_value(value.clone()).map_err(|e| {
                        McpError::invalid_params(
                            format!(
                            "the `{ENABLE_INPUT}` input response is not an elicitation result: {e}"
                        ),
                            None,
                        )
                    })?;
                self.remember_decline(suggestion, &response);
                return Ok(Ok(response));
            }
        }
        let refuse = |text: String| Ok(Err(Self::answer(ToolAnswer::error(text)).into()));
        let key = crate::config::suggestion_key(action, tool_type, id);
        if lock(&self.inner.gateway.suppressed).contains(&key) {
            let answer = json!({
                "completed": false,
                "user_confirmed": false,
                "name": id,
                "suppressed": true,
                "note": format!("the user declined to {action} `{id}` for good (`{key}` under `declined_suggestions` in skilldex.yaml; deleting it there asks again); do not suggest it again"),
            });
            return Ok(Err(Self::answer(ToolAnswer::ok(answer.to_string())).into()));
        }
        if !supports_form {
            return refuse(format!(
                "this MCP client does not support elicitation, so skilldex cannot ask the user to {action} `{id}`. Tell the user that the {what} `{id}` would help ({reason}) and that they can {action} it by {manual}."
            ));
        }
        let params = Self::elicitation_for(suggestion);
        if modern {
            let mut requests = InputRequests::new();
            requests.insert(
                ENABLE_INPUT.to_string(),
                InputRequest::Elicitation(ElicitRequest::new(params)),
            );
            return Ok(Err(CallToolResponse::InputRequired(
                InputRequiredResult::new(Some(requests), Some(state_token)),
            )));
        }
        let asked = tokio::select! {
            asked = context.peer.create_elicitation(params) => asked,
            () = self.input_closed() => {
                return refuse(format!(
                    "the client closed the connection before the user answered; nothing about `{id}` changed"
                ));
            }
        };
        match asked {
            Ok(result) => {
                self.remember_decline(suggestion, &result);
                Ok(Ok(result))
            }
            Err(error) => refuse(format!(
                "could not ask the user to {action} `{id}`: {error}"
            )),
        }
    }

    /// A suggestion declined with "always" is not asked again: not in
    /// this session, and not in later ones (it is added to
    /// `declined_suggestions` of the configuration file).
    fn remember_decline(&self, suggestion: &Suggestion, response: &ElicitResult) {
        if response.action != ElicitationAction::Accept && wants_persist(response) {
            let Suggestion {
                tool_type,
                action,
                id,
                ..
            } = suggestion;
            let key = crate::config::suggestion_key(action, tool_type, id);
            lock(&self.inner.gateway.suppressed).insert(key.clone());
            let kept = match &self.inner.settings {
                Some(settings) => match crate::config::persist_decline(settings, &key) {
                    Ok(Some(path)) => format!(
                        "; remembered as `{key}` under `declined_suggestions` in {}",
                        path.display()
                    ),
                    Ok(None) => " in this session (no configuration file is in use)".to_string(),
                    Err(error) => format!(" in this session: {error}"),
                },
                None => " in this session (no configuration file is in use)".to_string(),
            };
            self.log(&format!(
                "the user declined to {action} `{id}` for good{kept}"
            ));
        }
    }

    fn elicitation_for(suggestion: &Suggestion) -> ElicitRequestParams {
        let mut meta = MetaObject::new();
        for (key, value) in [
            ("codex_approval_kind", json!("tool_suggestion")),
            ("persist", json!("always")),
            ("tool_type", json!(suggestion.tool_type)),
            ("suggest_type", json!(suggestion.action)),
            ("suggest_reason", json!(suggestion.reason)),
            ("tool_id", json!(suggestion.id)),
            ("tool_name", json!(suggestion.name)),
        ] {
            meta.0.insert(key.to_string(), value);
        }
        let what = if suggestion.tool_type == "skill" {
            "the skill"
        } else {
            "the MCP server"
        };
        let verb = if suggestion.action == "enable" {
            "Enable"
        } else {
            "Install"
        };
        // Nothing to fill in: the answer is the action (accept or decline)
        // and, for "always", `_meta.persist`.
        let schema = ElicitationSchema::new(std::collections::BTreeMap::new());
        ElicitRequestParams::FormElicitationParams {
            meta: Some(RequestMetaObject(meta)),
            message: format!(
                "{}\n\n{verb} {what} `{}`? ({})",
                suggestion.reason, suggestion.id, suggestion.description
            ),
            requested_schema: schema,
        }
    }
}

/// One suggestion of the Type × Action taxonomy, as the user sees it.
pub(super) struct Suggestion {
    /// `skill` or `mcp_server`.
    pub tool_type: &'static str,
    /// `enable` or `install`.
    pub action: &'static str,
    pub id: String,
    pub name: String,
    pub description: String,
    pub reason: String,
}

/// Did the user ask to remember the answer (`_meta.persist` or a
/// `persist` field in the form)?
pub(super) fn wants_persist(response: &ElicitResult) -> bool {
    let always = |v: Option<&Value>| {
        v.is_some_and(|v| v.as_str() == Some("always") || v.as_bool() == Some(true))
    };
    always(response.meta.as_ref().and_then(|m| m.0.get("persist")))
        || always(response.content.as_ref().and_then(|c| c.get("persist")))
}
