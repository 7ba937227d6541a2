//! The simulator's shared state: configuration, clock, the world (reservations, org
//! reservations, launched instances, churn), faults, rate-limit windows and the request log.

use crate::clock::Clock;
use crate::faults::Faults;
use crate::org::OrgState;
use crate::placement::{Launched, Placement};
use crate::ratelimit::RateLimiter;
use crate::requests::RequestLog;
use crate::reservation::{Account, Key, Reservation};
use crate::scenario;
use crate::Config;
use chrono::{DateTime, SubsecRound, Utc};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

/// What the API reads and changes; rebuilt whole by a reset.
pub struct World {
    /// Ascending id, then account.
    pub reservations: Vec<Reservation>,
    pub org: OrgState,
    pub launched: Vec<Launched>,
    pub churn: HashMap<(Key, usize), u32>,
    /// Where the next churn starts, per reservation, so successive churns move on.
    pub churn_cursor: HashMap<Key, usize>,
    pub next_instance_id: u64,
}

impl World {
    fn new(config: &Config, start: DateTime<Utc>) -> Self {
        let data = scenario::build(config.scenario, config.seed, start);
        World {
            reservations: data.reservations,
            org: data.org,
            launched: Vec::new(),
            churn: HashMap::new(),
            churn_cursor: HashMap::new(),
            next_instance_id: 200_001,
        }
    }

    /// Reservation `id` of `account`.
    pub fn reservation(&self, account: Account, id: u64) -> Option<&Reservation> {
        self.reservations.iter().find(|r| r.spec.key() == Key { account, id })
    }

    /// Where a hook's reservation is ([`find_in`] over the world's reservations).
    pub fn find(&self, account: Option<Account>, id: u64) -> Option<usize> {
        find_in(&self.reservations, account, id)
    }

    pub fn placement(&self, sim: &Sim, now: DateTime<Utc>) -> Placement<'_> {
        Placement::of(&sim.config, now, &self.launched, &self.churn)
    }
}

/// Where a hook's reservation is in `reservations`: `id` of `account`, or of the first
/// account that holds it when none is named (the demo account's, where ids collide). Apart
/// from [`World::find`] for a hook that borrows the world's other fields beside the list.
pub fn find_in(reservations: &[Reservation], account: Option<Account>, id: u64) -> Option<usize> {
    reservations.iter().position(|r| r.spec.id == id && account.is_none_or(|a| a == r.spec.account))
}

pub struct Sim {
    pub config: Config,
    /// Real start, for the request log's times.
    started: Instant,
    /// The clock's initial instant: demo data is laid out from its month.
    start: DateTime<Utc>,
    clock: Mutex<Clock>,
    world: Mutex<World>,
    faults: Mutex<Faults>,
    limiter: Mutex<RateLimiter>,
    log: Mutex<RequestLog>,
    next_request: AtomicU64,
}

/// A poisoned lock only means a handler panicked; the data is still usable.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Sim {
    pub fn new(config: Config) -> Self {
        let start = config.now.unwrap_or_else(Utc::now).trunc_subsecs(0);
        Sim {
            started: Instant::now(),
            start,
            clock: Mutex::new(Clock::new(start)),
            world: Mutex::new(World::new(&config, start)),
            faults: Mutex::new(Faults::default()),
            limiter: Mutex::new(RateLimiter::new(config.rate_limit_per_min)),
            log: Mutex::new(RequestLog::default()),
            next_request: AtomicU64::new(1),
            config,
        }
    }

    pub fn now(&self) -> DateTime<Utc> {
        self.clock().now()
    }

    pub fn clock(&self) -> MutexGuard<'_, Clock> {
        lock(&self.clock)
    }

    pub fn world(&self) -> MutexGuard<'_, World> {
        lock(&self.world)
    }

    pub fn faults(&self) -> MutexGuard<'_, Faults> {
        lock(&self.faults)
    }

    pub fn limiter(&self) -> MutexGuard<'_, RateLimiter> {
        lock(&self.limiter)
    }

    pub fn log(&self) -> MutexGuard<'_, RequestLog> {
        lock(&self.log)
    }

    /// `req_` + 12 hex digits, counting up; never reused, not even across resets.
    pub fn next_request_id(&self) -> String {
        format!("req_{:012x}", self.next_request.fetch_add(1, Ordering::Relaxed))
    }

    pub fn elapsed_ms(&self) -> f64 {
        (self.started.elapsed().as_secs_f64() * 1_000_000.0).round() / 1000.0
    }

    /// The initial state again: data, clock (running from its start), faults, rate-limit
    /// windows and the request log.
    pub fn reset(&self) {
        *self.world() = World::new(&self.config, self.start);
        *self.clock() = Clock::new(self.start);
        self.faults().clear();
        *self.limiter() = RateLimiter::new(self.config.rate_limit_per_min);
        self.log().clear();
    }
}
