//! Change notifications: `notifications/resources/list_changed` to the
//! session (legacy lifecycle) and to every open `subscriptions/listen`
//! stream (2026-07-28), and the end of the client's input.

use super::{lock, SkilldexServer};
use rmcp::model::SubscriptionFilter;
use rmcp::service::{RoleServer, SubscriptionContext, SubscriptionSink};
use rmcp::{ErrorData as McpError, Peer};

impl SkilldexServer {
    /// Resolves when the client has closed stdin.
    pub(super) async fn input_closed(&self) {
        let mut closed = self.inner.input_closed.subscribe();
        // An error means the sender is gone: the session is over too.
        let _ = closed.wait_for(|closed| *closed).await;
    }
    /// Tell every listener that the resources changed.
    pub(super) async fn notify_changed(&self, peer: Option<&Peer<RoleServer>>) {
        *lock(&self.inner.last_change) = Some(std::time::Instant::now());
        if let Some(peer) = peer {
            // Unsolicited notifications exist only on sessions that began
            // with `initialize`.
            if peer.peer_info().is_some() {
                let _ = peer.notify_resource_list_changed().await;
                let _ = peer.notify_prompt_list_changed().await;
            }
        }
        let sinks: Vec<SubscriptionSink> = lock(&self.inner.sinks)
            .iter()
            .map(|(_, s)| s.clone())
            .collect();
        for sink in sinks {
            let _ = sink.notify_resource_list_changed().await;
            let _ = sink.notify_prompt_list_changed().await;
        }
    }

    /// Tell every listener that the tool list grew.
    pub(super) async fn notify_tools_changed(&self, peer: Option<&Peer<RoleServer>>) {
        if let Some(peer) = peer {
            if peer.peer_info().is_some() {
                let _ = peer.notify_tool_list_changed().await;
            }
        }
        let sinks: Vec<SubscriptionSink> = lock(&self.inner.sinks)
            .iter()
            .map(|(_, s)| s.clone())
            .collect();
        for sink in sinks {
            let _ = sink.notify_tool_list_changed().await;
        }
    }

    /// The catalog changed on disk: rebuild the view now (so the log shows
    /// problems at once) and tell the clients.
    pub(super) async fn on_catalog_change(&self, peer: &Peer<RoleServer>, revision: &str) {
        let view = self.view();
        let same = std::mem::replace(
            &mut *lock(&self.inner.logged_revision),
            revision.to_string(),
        ) == revision;
        if same {
            self.log(&format!(
                "files of skills changed (the catalog is still revision {revision})"
            ));
        } else {
            self.log(&format!(
                "catalog revision {revision}: {} skills",
                view.catalog.skills().len()
            ));
        }
        self.notify_changed(Some(peer)).await;
        // A tool catalog appeared in a session that had none: the
        // gateway's tools are appended to the tool list.
        if self
            .inner
            .gateway
            .appears_with(self.tool_set(&view).catalog())
        {
            self.log(
                "tool catalogs appeared: tool_search, call_tool and request_install are offered",
            );
            self.notify_tools_changed(Some(peer)).await;
        } else if self.pin_new_tools(&view) {
            self.log("pinned tools appeared in the tool catalogs: appended to the tool list");
            self.notify_tools_changed(Some(peer)).await;
        }
    }

    pub(super) fn subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(
            SubscriptionFilter::builder()
                .prompts_list_changed()
                .resources_list_changed()
                .tools_list_changed()
                .build(),
        )
    }

    pub(super) async fn listen_until_closed(
        &self,
        context: SubscriptionContext,
    ) -> Result<(), McpError> {
        let id = self
            .inner
            .next_sink
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        lock(&self.inner.sinks).push((id, context.sink().clone()));
        let recent = lock(&self.inner.last_change)
            .is_some_and(|at| at.elapsed() < std::time::Duration::from_millis(250));
        if recent {
            let _ = context.sink().notify_resource_list_changed().await;
        }
        tokio::select! {
            () = context.cancelled() => {}
            () = self.input_closed() => {}
        }
        lock(&self.inner.sinks).retain(|(i, _)| *i != id);
        Ok(())
    }
}
