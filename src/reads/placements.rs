//! GPUs in use per reservation, read once from each reservation's `/nodes` when a list or
//! detail is shown (through the [`NodesStore`], which keeps every answer for the session).

use super::generation::{Generation, Ticket};
use super::nodes::{use_nodes, NodesStore};
use super::pacer::Pacer;
use crate::api::error::ApiError;
use crate::api::models::{NodesResponse, Reservation};
use crate::browser::{after_content_paint, ChunkUnavailable};
use crate::domain::nodes::capacity::{runs_workloads, InUseOfReserved};
use crate::domain::polling::fleet::request_gap;
use crate::state::{use_connection, Lifetime};
use chrono::{DateTime, Utc};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// One reservation's placement read, for its GPUs-in-use figure.
#[derive(Clone, Debug, PartialEq)]
pub enum Placement {
    Loading,
    Read(InUseOfReserved),
    Failed(ApiError),
}

/// GPUs in use per reservation (by id), read once each time the page is shown or
/// refreshed: a summary, not the live view, so never polled. Only reservations whose
/// nodes run workloads are read; the others have no entry.
#[derive(Clone, Copy)]
pub struct Placements {
    reads: RwSignal<HashMap<i64, Placement>>,
    /// Every start makes the reads still under way stale.
    generation: Generation,
    nodes: NodesStore,
}

impl Default for Placements {
    /// Empty; reads the [`NodesStore`] from context.
    fn default() -> Self {
        Placements { reads: RwSignal::new(HashMap::new()), generation: Generation::default(), nodes: use_nodes() }
    }
}

impl Placements {
    /// What is known of reservation `id` (tracked).
    pub fn get(&self, id: i64) -> Option<Placement> {
        self.reads.with(|reads| reads.get(&id).cloned())
    }

    /// Marks `list`'s reservations that run workloads as loading (or as read, where this
    /// session already has their nodes), dropping anything read before; returns them.
    pub fn start(&self, list: &[Reservation]) -> Vec<Reservation> {
        let wanted: Vec<Reservation> = list.iter().filter(|r| runs_workloads(&r.status)).cloned().collect();
        let known = |r: &Reservation| {
            let read = untrack(|| {
                self.nodes.with(r.id, |read| read.latest.as_ref().map(|f| InUseOfReserved::of(r, &f.value)))
            });
            read.map_or(Placement::Loading, Placement::Read)
        };
        self.reads.set(wanted.iter().map(|r| (r.id, known(r))).collect());
        wanted
    }

    /// One reservation's `/nodes` answer.
    pub fn receive(&self, r: &Reservation, result: Result<&NodesResponse, ApiError>) {
        let placement = match result {
            Ok(response) => Placement::Read(InUseOfReserved::of(r, response)),
            Err(error) => Placement::Failed(error),
        };
        // A no-op once the page is gone.
        self.reads.try_update(|reads| reads.insert(r.id, placement));
    }

    /// Reads the placements of `list()` each time `fetched` changes (a list or detail was
    /// received): one request at a time, each at least [`request_gap`] after the previous
    /// one ended, and after a 429 or 503 none before its `retry-after`, so the reads stay far
    /// inside the 200 requests a minute of CONTRACT.md. Each answer lands in the
    /// [`NodesStore`] too, where the other pages find it.
    pub fn read_after(
        self,
        fetched: Memo<Option<DateTime<Utc>>>,
        list: impl Fn() -> Vec<Reservation> + Send + Sync + 'static,
    ) {
        let state = use_connection();
        Effect::new(move || {
            if fetched.get().is_none() {
                return;
            }
            if !untrack(|| state.is_connected()) {
                return;
            }
            let ticket = self.generation.next();
            let wanted = untrack(|| self.start(&list()));
            spawn_local(async move {
                // The table paints first: decoding a large reservation's placement (270 KB
                // for 1,000 nodes) would hold the frame that shows it.
                after_content_paint().await;
                match read_each(self, ticket, wanted.clone()).await {
                    Ok(reads) => reads.await,
                    // The reads' code did not arrive: each figure says why, none is left loading.
                    Err(ChunkUnavailable) if ticket.current() => {
                        let error = ApiError::network(CODE_UNAVAILABLE);
                        wanted.iter().for_each(|r| self.receive(r, Err(error.clone())));
                    }
                    Err(ChunkUnavailable) => {}
                }
            });
        });
    }
}

/// Why a figure could not be read when the code that reads it could not be fetched.
const CODE_UNAVAILABLE: &str = "The console's code that reads GPUs in use could not be fetched (the network \
     dropped, or a new release replaced this tab's files); reload the page to read them.";

/// The reads of `wanted`, one at a time ([`Pacer`]): each at least [`request_gap`] after
/// the previous one ended, and after a 429 or 503 none before its `retry-after`.
async fn reads(placements: Placements, ticket: Ticket, wanted: Vec<Reservation>) {
    let pacer = Pacer::new(request_gap());
    for r in wanted {
        pacer.wait(Duration::ZERO).await;
        if !ticket.current() {
            return;
        }
        let result = placements.nodes.fetch(r.id, Lifetime::Page).await;
        if !ticket.current() {
            return;
        }
        pacer.ended(result.as_ref().err().and_then(ApiError::retry_after));
        placements.receive(&r, result.as_deref().map_err(Clone::clone));
    }
}

/// [`reads`], whose code (the `/nodes` request and its decode) arrives in the release
/// build as a chunk of its own once the list is on screen: the first load carries the
/// table, not the reading of its GPUs-in-use column.
#[cfg(split_pages)]
#[wasm_split_helpers::wasm_split(placement_reads, fallible)]
fn read_each(placements: Placements, ticket: Ticket, wanted: Vec<Reservation>) -> Result<Reads, ChunkUnavailable> {
    Ok(Box::pin(reads(placements, ticket, wanted)))
}

#[cfg(not(split_pages))]
async fn read_each(
    placements: Placements,
    ticket: Ticket,
    wanted: Vec<Reservation>,
) -> Result<Reads, ChunkUnavailable> {
    Ok(Box::pin(reads(placements, ticket, wanted)))
}

type Reads = Pin<Box<dyn Future<Output = ()>>>;
