//! "Tell me when it fits": the rule that says when a watched `/fit` question fires, one
//! state per reservation, stepped by each look at its latest read. Pure: the store that
//! holds a watch (`reads::fit_watch`) feeds it what the console already read, so a watch
//! adds no request.
//!
//! - It fires when a fresh read says "fits now" and the reservation was not fitting.
//! - Once fired, it fires again only after a fresh read said it does not fit (fragmented,
//!   full, or closed to launches): one alert per transition.
//! - An unknown verdict and a stale read (the latest read failed, or it is older than two
//!   refreshes) say nothing: the state stays as it was, so they neither fire nor re-arm.
//! - A closed reservation never fires (its verdict is never "fits now"); it re-arms, since a
//!   launch there would be refused.
//!
//! Looking twice at the same read steps to the same state: the store may look again when
//! anything else it reads changes.

use crate::domain::fleet::fit::{Question, Verdict};
use crate::domain::nodes::capacity::gpus_text;
use crate::domain::words::count;
use chrono::{DateTime, Utc};
use std::collections::BTreeMap;

/// What one look at a reservation's latest read says, as the watch counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    Fits,
    /// Fresh and trusted, and it does not fit (fragmented, full, closed).
    DoesNotFit,
    /// Unknown verdict, or a reservation of another type or region than asked.
    Unknown,
    /// The latest read failed, or it is older than two refreshes.
    Stale,
}

impl Reading {
    /// `verdict`, judged from a read that is `stale` or not.
    pub fn of(verdict: &Verdict, stale: bool) -> Reading {
        match verdict {
            Verdict::Unknown(_) | Verdict::NotAsked { .. } => Reading::Unknown,
            _ if stale => Reading::Stale,
            Verdict::FitsNow { .. } => Reading::Fits,
            Verdict::Fragmented { .. } | Verdict::Full { .. } | Verdict::Closed(_) => Reading::DoesNotFit,
        }
    }
}

/// One reservation's place in the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// The next fresh "fits now" fires.
    Armed,
    /// It fits (fired, or fitted when the watch began): waits for a fresh "does not fit".
    Fitting,
}

impl State {
    /// Where a reservation starts when the watch first sees it: one that fits already is
    /// what the page shows, not news.
    pub fn first(reading: Reading) -> State {
        match reading {
            Reading::Fits => State::Fitting,
            _ => State::Armed,
        }
    }

    /// The state after `reading`, and whether it fired.
    pub fn step(self, reading: Reading) -> (State, bool) {
        match (self, reading) {
            (State::Armed, Reading::Fits) => (State::Fitting, true),
            (_, Reading::DoesNotFit) => (State::Armed, false),
            (state, _) => (state, false),
        }
    }
}

/// A watched question: since when, and each reservation's state.
#[derive(Clone, Debug, PartialEq)]
pub struct Watch {
    pub question: Question,
    pub since: DateTime<Utc>,
    states: BTreeMap<i64, State>,
}

impl Watch {
    pub fn new(question: Question, since: DateTime<Utc>) -> Watch {
        Watch { question, since, states: BTreeMap::new() }
    }

    /// Steps each reservation by its reading; returns those that fired. A reservation seen
    /// for the first time starts by [`State::first`] and does not fire.
    pub fn look(&mut self, readings: &[(i64, Reading)]) -> Vec<i64> {
        let mut fired = Vec::new();
        for &(id, reading) in readings {
            let now = match self.states.get(&id) {
                None => State::first(reading),
                Some(state) => {
                    let (next, fires) = state.step(reading);
                    if fires {
                        fired.push(id);
                    }
                    next
                }
            };
            self.states.insert(id, now);
        }
        fired
    }
}

/// How close the question is to fitting, from the verdicts of fresh reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closeness {
    /// A reservation has room now.
    Fits,
    /// No ready node has the GPUs: the largest block is this many short.
    NodeShort(u64),
    /// Some replicas fit somewhere, not all: the most of them one reservation has room for.
    Replicas { fit: u64, wanted: u32 },
}

impl Closeness {
    /// The closest of `verdicts`: [`Closeness::Fits`] when one fits, else the closest of
    /// those that do not (fragmented or full); `None` when none says.
    pub fn of<'a>(verdicts: impl IntoIterator<Item = &'a Verdict>, question: &Question) -> Option<Closeness> {
        let k = u64::from(question.gpus.get());
        let (mut largest, mut replicas) = (None::<u64>, None::<u64>);
        for verdict in verdicts {
            let (block, fit) = match verdict {
                Verdict::FitsNow { .. } => return Some(Closeness::Fits),
                Verdict::Fragmented { largest, replicas, .. } | Verdict::Full { largest, replicas, .. } => {
                    (*largest, *replicas)
                }
                _ => continue,
            };
            largest = Some(largest.map_or(block, |l| l.max(block)));
            replicas = Some(replicas.map_or(fit, |r| r.max(fit)));
        }
        match (largest?, replicas?) {
            (block, _) if block < k => Some(Closeness::NodeShort(k - block)),
            (_, fit) => Some(Closeness::Replicas { fit, wanted: question.replicas.get() }),
        }
    }

    /// "best node 2 GPUs short", "room for 1 of 2 replicas at best", or that it fits now.
    pub fn text(&self) -> String {
        match self {
            Closeness::Fits => "it fits now: the bell says where".to_owned(),
            Closeness::NodeShort(short) => {
                format!("best node {} short", gpus_text(i64::try_from(*short).unwrap_or(i64::MAX)))
            }
            Closeness::Replicas { fit, wanted } => {
                format!("room for {fit} of {} at best", count(i64::from(*wanted), "replica"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::fleet::fit::tests::ask;
    use crate::domain::fleet::fit::UnknownWhy;

    fn watch() -> Watch {
        Watch::new(ask(4, 1), DateTime::UNIX_EPOCH)
    }

    /// Looks at reservation 7 once per reading; the looks that fired, by position.
    fn fired_at(watch: &mut Watch, readings: &[Reading]) -> Vec<usize> {
        readings.iter().enumerate().filter(|(_, r)| !watch.look(&[(7, **r)]).is_empty()).map(|(i, _)| i).collect()
    }

    #[test]
    fn fires_when_a_fresh_read_turns_to_fits_now() {
        let mut w = watch();
        assert_eq!(fired_at(&mut w, &[Reading::DoesNotFit, Reading::DoesNotFit, Reading::Fits]), [2]);
    }

    #[test]
    fn fires_once_per_transition_and_again_only_after_a_read_that_does_not_fit() {
        let mut w = watch();
        let reads = [
            Reading::DoesNotFit,
            Reading::Fits,
            Reading::Fits,
            Reading::Fits,
            Reading::DoesNotFit,
            Reading::Fits,
            Reading::Fits,
        ];
        assert_eq!(fired_at(&mut w, &reads), [1, 5]);
    }

    #[test]
    fn an_unknown_verdict_neither_fires_nor_rearms() {
        let mut w = watch();
        assert_eq!(fired_at(&mut w, &[Reading::Unknown, Reading::Unknown]), Vec::<usize>::new());
        let mut w = watch();
        let reads = [Reading::DoesNotFit, Reading::Fits, Reading::Unknown, Reading::Fits];
        assert_eq!(fired_at(&mut w, &reads), [1], "fits, unknown, fits is one transition");
    }

    #[test]
    fn a_stale_read_never_fires_and_does_not_rearm() {
        let mut w = watch();
        assert_eq!(fired_at(&mut w, &[Reading::DoesNotFit, Reading::Stale, Reading::Stale]), Vec::<usize>::new());
        let stale_fits = Reading::of(&Verdict::FitsNow { replicas: 1, rooms: Vec::new() }, true);
        assert_eq!(stale_fits, Reading::Stale, "an old or failed read that fitted is stale");
        let reads = [Reading::DoesNotFit, Reading::Fits, Reading::Stale, Reading::Fits];
        assert_eq!(fired_at(&mut watch(), &reads), [1]);
    }

    #[test]
    fn a_closed_reservation_never_fires_and_rearms() {
        let closed = Reading::of(&Verdict::Closed("New launches paused."), false);
        assert_eq!(closed, Reading::DoesNotFit);
        let reads = [Reading::DoesNotFit, Reading::Fits, closed, closed, Reading::Fits];
        assert_eq!(fired_at(&mut watch(), &reads), [1, 4]);
    }

    #[test]
    fn a_reservation_that_fits_when_the_watch_begins_does_not_fire_until_it_stopped_fitting() {
        let mut w = watch();
        assert_eq!(fired_at(&mut w, &[Reading::Fits, Reading::Fits, Reading::DoesNotFit, Reading::Fits]), [3]);
        let mut w = watch();
        assert_eq!(fired_at(&mut w, &[Reading::Unknown, Reading::Fits]), [1], "first known: not fitting");
    }

    #[test]
    fn looking_twice_at_the_same_read_changes_nothing() {
        for reading in [Reading::Fits, Reading::DoesNotFit, Reading::Unknown, Reading::Stale] {
            for state in [State::Armed, State::Fitting] {
                let (once, _) = state.step(reading);
                assert_eq!(once.step(reading), (once, false), "{state:?} then {reading:?} twice");
            }
        }
    }

    #[test]
    fn each_reservation_fires_on_its_own() {
        let mut w = watch();
        w.look(&[(1, Reading::DoesNotFit), (2, Reading::DoesNotFit)]);
        assert_eq!(w.look(&[(1, Reading::Fits), (2, Reading::DoesNotFit)]), [1]);
        assert_eq!(w.look(&[(1, Reading::Fits), (2, Reading::Fits)]), [2]);
    }

    #[test]
    fn unknown_and_not_asked_verdicts_are_unknown_even_when_fresh() {
        assert_eq!(Reading::of(&Verdict::Unknown(UnknownWhy::Unreachable), false), Reading::Unknown);
        assert_eq!(Reading::of(&Verdict::NotAsked { gpu_type: true, region: false }, false), Reading::Unknown);
    }

    fn fragmented(largest: u64, replicas: u64) -> Verdict {
        Verdict::Fragmented { free: 6, replicas, largest, stranded: 6, gpus_per_node: 8 }
    }

    #[test]
    fn closeness_is_the_largest_block_on_any_node_or_the_most_replicas() {
        let full = Verdict::Full { free: 1, needed: 4, replicas: 0, largest: 1, gpus_per_node: 8 };
        let verdicts = [fragmented(2, 0), full.clone(), Verdict::Closed("")];
        assert_eq!(Closeness::of(&verdicts, &ask(4, 1)), Some(Closeness::NodeShort(2)));
        assert_eq!(Closeness::NodeShort(2).text(), "best node 2 GPUs short");
        assert_eq!(Closeness::NodeShort(1).text(), "best node 1 GPU short");
        let some = Closeness::of(&[fragmented(4, 1), full], &ask(4, 2));
        assert_eq!(some, Some(Closeness::Replicas { fit: 1, wanted: 2 }));
        assert_eq!(some.unwrap().text(), "room for 1 of 2 replicas at best");
        assert_eq!(Closeness::of(&[Verdict::Unknown(UnknownWhy::NotRead)], &ask(4, 1)), None);
        let fits = Verdict::FitsNow { replicas: 1, rooms: Vec::new() };
        assert_eq!(Closeness::of(&[fragmented(2, 0), fits], &ask(4, 1)), Some(Closeness::Fits));
    }
}
