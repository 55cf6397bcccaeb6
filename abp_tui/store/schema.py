"""Ordered, recorded schema migrations. Append new ones; never edit one that has shipped."""

from __future__ import annotations

MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_initial",
        """
CREATE TABLE blobs (
    sha256 TEXT PRIMARY KEY,
    text TEXT NOT NULL
);
CREATE TABLE studies (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    protocol TEXT NOT NULL,
    description TEXT NOT NULL,
    rubric_id TEXT,
    limitations TEXT NOT NULL,
    synthetic INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE rubrics (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    version TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    document TEXT NOT NULL,
    source TEXT NOT NULL,
    UNIQUE (id, sha256)
);
CREATE TABLE imports (
    pk INTEGER PRIMARY KEY,
    file_name TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    format TEXT NOT NULL,
    study_id TEXT NOT NULL REFERENCES studies(id),
    imported_at TEXT NOT NULL,
    counts TEXT NOT NULL
);
CREATE INDEX imports_sha ON imports (sha256, study_id);
CREATE TABLE conditions (
    pk INTEGER PRIMARY KEY,
    study_id TEXT NOT NULL REFERENCES studies(id),
    id TEXT NOT NULL,
    version_no INTEGER NOT NULL,
    current INTEGER NOT NULL,
    placeholder INTEGER NOT NULL DEFAULT 0,
    sha256 TEXT NOT NULL,
    label TEXT NOT NULL,
    instructions TEXT NOT NULL,
    version TEXT NOT NULL,
    metadata TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (study_id, id, version_no)
);
CREATE TABLE tasks (
    pk INTEGER PRIMARY KEY,
    study_id TEXT NOT NULL REFERENCES studies(id),
    id TEXT NOT NULL,
    version_no INTEGER NOT NULL,
    current INTEGER NOT NULL,
    placeholder INTEGER NOT NULL DEFAULT 0,
    sha256 TEXT NOT NULL,
    title TEXT NOT NULL,
    prompt TEXT NOT NULL,
    base_instruction TEXT NOT NULL,
    evidence TEXT NOT NULL,
    expected_behaviour TEXT NOT NULL,
    fatal_criteria TEXT NOT NULL,
    risk_type TEXT NOT NULL,
    version TEXT NOT NULL,
    synthetic INTEGER NOT NULL,
    metadata TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (study_id, id, version_no)
);
CREATE TABLE traces (
    pk INTEGER PRIMARY KEY,
    sha256 TEXT,
    n_events INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX traces_sha ON traces (sha256);
CREATE TABLE trace_events (
    trace_pk INTEGER NOT NULL REFERENCES traces(pk),
    seq INTEGER NOT NULL,
    t TEXT,
    kind TEXT NOT NULL,
    tool TEXT,
    input_tokens INTEGER,
    output_tokens INTEGER,
    cache_read_tokens INTEGER,
    cache_write_tokens INTEGER,
    duration_ms REAL,
    raw TEXT NOT NULL
);
CREATE INDEX trace_events_trace ON trace_events (trace_pk, seq);
CREATE TABLE runs (
    pk INTEGER PRIMARY KEY,
    study_id TEXT NOT NULL REFERENCES studies(id),
    id TEXT NOT NULL,
    version_no INTEGER NOT NULL,
    current INTEGER NOT NULL,
    placeholder INTEGER NOT NULL DEFAULT 0,
    sha256 TEXT NOT NULL,
    task_pk INTEGER NOT NULL REFERENCES tasks(pk),
    condition_pk INTEGER NOT NULL REFERENCES conditions(pk),
    trial INTEGER NOT NULL,
    output_sha256 TEXT REFERENCES blobs(sha256),
    trace_pk INTEGER REFERENCES traces(pk),
    provider TEXT,
    model TEXT,
    model_version TEXT,
    engine TEXT,
    engine_version TEXT,
    reasoning TEXT,
    input_tokens INTEGER,
    output_tokens INTEGER,
    cache_read_tokens INTEGER,
    cache_write_tokens INTEGER,
    total_tokens INTEGER,
    tool_calls INTEGER,
    wall_clock_ms REAL,
    cost_usd REAL,
    started_at TEXT,
    origin_status TEXT,
    automated_outcome TEXT,
    excluded_reason TEXT,
    source_file TEXT NOT NULL,
    source_line INTEGER,
    synthetic INTEGER NOT NULL,
    not_exposed TEXT NOT NULL,
    document TEXT NOT NULL,
    import_pk INTEGER REFERENCES imports(pk),
    created_at TEXT NOT NULL,
    UNIQUE (study_id, id, version_no)
);
CREATE INDEX runs_current ON runs (study_id, current);
CREATE TABLE reference_verdicts (
    pk INTEGER PRIMARY KEY,
    study_id TEXT NOT NULL REFERENCES studies(id),
    id TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    schema_name TEXT NOT NULL,
    document TEXT NOT NULL,
    UNIQUE (study_id, id, sha256)
);
CREATE TABLE reviewers (
    name TEXT PRIMARY KEY,
    external INTEGER NOT NULL
);
CREATE TABLE preferences (
    pk INTEGER PRIMARY KEY,
    study_id TEXT NOT NULL REFERENCES studies(id),
    reviewer TEXT NOT NULL REFERENCES reviewers(name),
    item_id TEXT NOT NULL,
    task_pk INTEGER NOT NULL REFERENCES tasks(pk),
    run_1_pk INTEGER NOT NULL REFERENCES runs(pk),
    run_2_pk INTEGER NOT NULL REFERENCES runs(pk),
    choice TEXT NOT NULL,
    justification TEXT NOT NULL,
    source TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX preferences_item ON preferences (study_id, item_id);
CREATE TABLE audit_log (
    pk INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    detail TEXT NOT NULL
);
""",
    ),
]

MIGRATIONS.append(
    (
        "0002_judging",
        """
CREATE TABLE designs (
    pk INTEGER PRIMARY KEY,
    study_id TEXT NOT NULL REFERENCES studies(id),
    name TEXT NOT NULL,
    version_no INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    document TEXT NOT NULL,
    rubric TEXT NOT NULL,
    seed INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    frozen_at TEXT,
    UNIQUE (study_id, name, version_no)
);
CREATE TABLE items (
    pk INTEGER PRIMARY KEY,
    design_pk INTEGER NOT NULL REFERENCES designs(pk),
    key TEXT NOT NULL,
    code TEXT NOT NULL,
    kind TEXT NOT NULL,
    task_pk INTEGER NOT NULL REFERENCES tasks(pk),
    trial INTEGER NOT NULL,
    run_a_pk INTEGER NOT NULL REFERENCES runs(pk),
    run_b_pk INTEGER REFERENCES runs(pk),
    base_flip INTEGER NOT NULL,
    masking TEXT NOT NULL,
    UNIQUE (design_pk, code),
    UNIQUE (design_pk, key)
);
CREATE TABLE enrolments (
    design_pk INTEGER NOT NULL REFERENCES designs(pk),
    reviewer TEXT NOT NULL REFERENCES reviewers(name),
    slot INTEGER NOT NULL,
    enrolled_at TEXT NOT NULL,
    PRIMARY KEY (design_pk, reviewer)
);
CREATE TABLE assignments (
    item_pk INTEGER NOT NULL REFERENCES items(pk),
    reviewer TEXT NOT NULL REFERENCES reviewers(name),
    slot INTEGER NOT NULL,
    order_index INTEGER NOT NULL,
    flipped INTEGER NOT NULL,
    PRIMARY KEY (item_pk, reviewer)
);
CREATE INDEX assignments_reviewer ON assignments (reviewer, order_index);
CREATE TABLE judgments (
    pk INTEGER PRIMARY KEY,
    item_pk INTEGER NOT NULL REFERENCES items(pk),
    reviewer TEXT NOT NULL REFERENCES reviewers(name),
    revision INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('draft', 'submitted')),
    payload TEXT NOT NULL,
    placement TEXT NOT NULL,
    reason TEXT NOT NULL,
    seconds_spent REAL NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (item_pk, reviewer, revision)
);
CREATE TRIGGER judgments_append_only_update BEFORE UPDATE ON judgments
BEGIN SELECT RAISE(ABORT, 'judgments are append-only: add a revision instead'); END;
CREATE TRIGGER judgments_append_only_delete BEFORE DELETE ON judgments
BEGIN SELECT RAISE(ABORT, 'judgments are append-only: they are never deleted'); END;
CREATE TABLE findings (
    pk INTEGER PRIMARY KEY,
    study_id TEXT NOT NULL REFERENCES studies(id),
    id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    reviewer TEXT NOT NULL,
    document TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (study_id, id, revision)
);
CREATE TABLE finding_runs (
    finding_pk INTEGER NOT NULL REFERENCES findings(pk),
    run_pk INTEGER NOT NULL REFERENCES runs(pk),
    PRIMARY KEY (finding_pk, run_pk)
);
CREATE TABLE positions (
    reviewer TEXT NOT NULL,
    design_pk INTEGER NOT NULL REFERENCES designs(pk),
    item_pk INTEGER NOT NULL REFERENCES items(pk),
    updated_at TEXT NOT NULL,
    PRIMARY KEY (reviewer, design_pk)
);
""",
    )
)

MIGRATIONS.append(
    (
        "0003_packs",
        """
CREATE TABLE packs (
    sha256 TEXT PRIMARY KEY,
    design_pk INTEGER NOT NULL REFERENCES designs(pk),
    reviewer TEXT NOT NULL,
    items INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE merges (
    sha256 TEXT PRIMARY KEY,
    pack_sha256 TEXT NOT NULL REFERENCES packs(sha256),
    reviewer TEXT NOT NULL,
    judgments INTEGER NOT NULL,
    merged_at TEXT NOT NULL
);
""",
    )
)

MIGRATIONS.append(
    (
        "0004_adjudications",
        """
CREATE TABLE adjudications (
    pk INTEGER PRIMARY KEY,
    item_pk INTEGER NOT NULL REFERENCES items(pk),
    adjudicator TEXT NOT NULL,
    revision INTEGER NOT NULL,
    payload TEXT NOT NULL,
    placement TEXT NOT NULL,
    note TEXT NOT NULL CHECK (length(trim(note)) > 0),
    show_names INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (item_pk, revision)
);
CREATE TRIGGER adjudications_append_only_update BEFORE UPDATE ON adjudications
BEGIN SELECT RAISE(ABORT, 'adjudications are append-only: add a revision instead'); END;
CREATE TRIGGER adjudications_append_only_delete BEFORE DELETE ON adjudications
BEGIN SELECT RAISE(ABORT, 'adjudications are append-only: they are never deleted'); END;
""",
    )
)

MIGRATIONS.append(
    (
        "0005_browsing",
        # Views for Datasette and other SQLite browsers (abp_tui.store.views); latest_judgments
        # depends on the stored rubrics' dimensions, so connect() keeps it up to date instead.
        """
CREATE VIEW current_runs AS
SELECT r.study_id, r.id AS run_id, t.id AS task_id, t.title AS task_title,
       c.id AS condition_id, c.label AS condition_label, r.trial,
       r.provider, r.model, r.model_version, r.engine, r.engine_version,
       r.origin_status, r.automated_outcome, r.excluded_reason,
       r.input_tokens, r.output_tokens, r.total_tokens, r.tool_calls,
       r.wall_clock_ms, r.cost_usd, r.started_at,
       length(b.text) AS output_chars, b.text AS output, tr.n_events AS trace_events,
       r.version_no AS run_version, r.synthetic, r.source_file, r.created_at AS imported_at
FROM runs r
JOIN tasks t ON t.pk = r.task_pk
JOIN conditions c ON c.pk = r.condition_pk
LEFT JOIN blobs b ON b.sha256 = r.output_sha256
LEFT JOIN traces tr ON tr.pk = r.trace_pk
WHERE r.current = 1;
CREATE TABLE final_verdicts (
    design_pk INTEGER NOT NULL REFERENCES designs(pk),
    study_id TEXT NOT NULL,
    design TEXT NOT NULL,
    design_version INTEGER NOT NULL,
    run_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    condition_id TEXT NOT NULL,
    trial INTEGER NOT NULL,
    source TEXT NOT NULL,
    result_state TEXT,
    scores TEXT NOT NULL,
    fatal_hits TEXT NOT NULL,
    judgments INTEGER NOT NULL,
    items TEXT NOT NULL,
    computed_at TEXT NOT NULL,
    PRIMARY KEY (design_pk, run_id)
);
""",
    )
)

MIGRATIONS.append(
    (
        "0006_run_lookup",
        # One run by id (the import's versioning check, load_run, a pack's runs): without this
        # index SQLite's planner, seeing two equally long indexes, picks runs_current and scans
        # every current run of the study for each lookup, which made imports quadratic.
        """
CREATE INDEX runs_id_current ON runs (study_id, id, current);
""",
    )
)

MIGRATIONS.append(
    (
        "0007_automated_scores",
        # The automated judge's outcome of each run version (abp_tui.store.automated): append-only,
        # one row per run version, scorer and scored inputs.
        """
CREATE TABLE automated_scores (
    pk INTEGER PRIMARY KEY,
    study_id TEXT NOT NULL REFERENCES studies(id),
    run_pk INTEGER NOT NULL REFERENCES runs(pk),
    scorer TEXT NOT NULL,
    spec_sha256 TEXT NOT NULL,
    submission_sha256 TEXT NOT NULL,
    outcome TEXT NOT NULL,
    dimensions TEXT NOT NULL,
    document TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (run_pk, scorer, spec_sha256, submission_sha256)
);
CREATE TRIGGER automated_scores_no_update BEFORE UPDATE ON automated_scores
BEGIN SELECT RAISE(ABORT, 'automated scores are append-only: they are never changed'); END;
CREATE TRIGGER automated_scores_no_delete BEFORE DELETE ON automated_scores
BEGIN SELECT RAISE(ABORT, 'automated scores are append-only: they are never deleted'); END;
""",
    )
)

MIGRATIONS.append(
    (
        "0008_ai_judges",
        # AI judges and their verdicts (abp_tui.store.judges), apart from people's judgments:
        # no judge is a reviewer (the triggers keep the two names apart), so a judge can never
        # be enrolled in a design, hold a judgment or enter reviewer agreement. Append-only, as
        # judgments are: a changed verdict is a new row, the latest of its slot counts.
        """
CREATE TABLE judges (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind = 'ai'),
    model TEXT NOT NULL,
    prompt TEXT NOT NULL,
    version TEXT NOT NULL,
    source TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    document TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (id, sha256)
);
CREATE TRIGGER judges_are_not_reviewers BEFORE INSERT ON judges
WHEN EXISTS (SELECT 1 FROM reviewers WHERE name = NEW.id)
BEGIN SELECT RAISE(ABORT, 'an AI judge cannot share its name with a reviewer'); END;
CREATE TRIGGER reviewers_are_not_judges BEFORE INSERT ON reviewers
WHEN EXISTS (SELECT 1 FROM judges WHERE id = NEW.name)
BEGIN SELECT RAISE(ABORT, 'an AI judge is never a reviewer'); END;
CREATE TABLE judge_verdicts (
    pk INTEGER PRIMARY KEY,
    study_id TEXT NOT NULL REFERENCES studies(id),
    judge_pk INTEGER NOT NULL REFERENCES judges(pk),
    task_pk INTEGER NOT NULL REFERENCES tasks(pk),
    run_a_pk INTEGER NOT NULL REFERENCES runs(pk),
    run_b_pk INTEGER REFERENCES runs(pk),
    shown_first_pk INTEGER REFERENCES runs(pk),
    turn INTEGER,
    kind TEXT NOT NULL CHECK (kind IN ('preference', 'score', 'pass_fail')),
    verdict TEXT,
    score REAL,
    error TEXT,
    explanation_sha256 TEXT REFERENCES blobs(sha256),
    document TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    import_pk INTEGER REFERENCES imports(pk),
    created_at TEXT NOT NULL,
    UNIQUE (judge_pk, sha256)
);
CREATE INDEX judge_verdicts_study ON judge_verdicts (study_id, judge_pk);
CREATE TRIGGER judge_verdicts_no_update BEFORE UPDATE ON judge_verdicts
BEGIN SELECT RAISE(ABORT, 'judge verdicts are append-only: import a new one instead'); END;
CREATE TRIGGER judge_verdicts_no_delete BEFORE DELETE ON judge_verdicts
BEGIN SELECT RAISE(ABORT, 'judge verdicts are append-only: they are never deleted'); END;
""",
    )
)

MIGRATIONS.append(
    (
        "0009_plan_secrets",
        # The coordinator's secrets (abp_tui.store.secrets): each design's plan secret, from
        # which its blind codes, placement and order are derived (abp_tui.analysis.blinding),
        # and the key each reviewer's pack signs its ratings with. Designs stored before this
        # migration have no plan secret: their stored plans (derived from the seed) stay as
        # they were, and a pack of one is refused until the design is planned again. Neither
        # table is ever filled on a reviewer station but by the key of its own pack.
        """
CREATE TABLE plan_secrets (
    design_pk INTEGER PRIMARY KEY REFERENCES designs(pk),
    secret TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TRIGGER plan_secrets_no_update BEFORE UPDATE ON plan_secrets
BEGIN SELECT RAISE(ABORT, 'a plan secret never changes: a new plan is a new design version'); END;
CREATE TRIGGER plan_secrets_frozen BEFORE DELETE ON plan_secrets
WHEN (SELECT frozen_at FROM designs WHERE pk = OLD.design_pk) IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'the plan secret of a frozen design is kept'); END;
CREATE TABLE reviewer_keys (
    design_pk INTEGER NOT NULL REFERENCES designs(pk),
    reviewer TEXT NOT NULL,
    key TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (design_pk, reviewer)
);
CREATE TRIGGER reviewer_keys_no_update BEFORE UPDATE ON reviewer_keys
BEGIN SELECT RAISE(ABORT, 'a reviewer key never changes once issued'); END;
""",
    )
)

MIGRATIONS.append(
    (
        "0010_coordinator_views",
        # Who has seen a study's coordinator-level figures (abp_tui.store.coordinator_views):
        # on an open design, enrolment of anyone recorded here is refused. Append-only: having
        # seen the figures cannot be undone. design_pk is no foreign key: an unfrozen design may
        # be replaced (its row deleted) after someone looked at its empty figures.
        """
CREATE TABLE coordinator_views (
    pk INTEGER PRIMARY KEY,
    study_id TEXT NOT NULL REFERENCES studies(id),
    design_pk INTEGER,
    viewer TEXT NOT NULL,
    figure TEXT NOT NULL,
    viewed_at TEXT NOT NULL
);
CREATE INDEX coordinator_views_viewer ON coordinator_views (study_id, viewer);
CREATE TRIGGER coordinator_views_no_update BEFORE UPDATE ON coordinator_views
BEGIN SELECT RAISE(ABORT, 'coordinator views are append-only: they are never changed'); END;
CREATE TRIGGER coordinator_views_no_delete BEFORE DELETE ON coordinator_views
BEGIN SELECT RAISE(ABORT, 'coordinator views are append-only: they are never deleted'); END;
""",
    )
)

MIGRATIONS.append(
    (
        "0011_import_sessions",
        # The imports in progress (abp_tui.store.import_sessions): an import stages its trace
        # events in committed batches, where no run names them yet; one killed leaves them
        # behind. Its row here, left behind too, says so: the next import or opening removes
        # what it staged once no import is running. The index finds traces no run names.
        """
CREATE TABLE import_sessions (
    pk INTEGER PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started_at TEXT NOT NULL
);
CREATE INDEX runs_trace ON runs (trace_pk);
""",
    )
)

MIGRATIONS.append(
    (
        "0012_final_preferences",
        # A preference belongs to a pair: the final preference of every judged pair item of
        # every design (abp_tui.analysis.item_preferences), beside final_verdicts' runs. A
        # snapshot, like final_verdicts: abp-tui schema rewrites it.
        """
CREATE TABLE final_preferences (
    design_pk INTEGER NOT NULL REFERENCES designs(pk),
    study_id TEXT NOT NULL,
    design TEXT NOT NULL,
    design_version INTEGER NOT NULL,
    item TEXT NOT NULL,
    task_id TEXT NOT NULL,
    run_a_id TEXT NOT NULL,
    condition_a_id TEXT NOT NULL,
    run_b_id TEXT NOT NULL,
    condition_b_id TEXT NOT NULL,
    source TEXT NOT NULL,
    preferred TEXT,
    preferred_condition_id TEXT,
    judgments INTEGER NOT NULL,
    reviews TEXT NOT NULL,
    adjudicator TEXT,
    computed_at TEXT NOT NULL,
    PRIMARY KEY (design_pk, item)
);
""",
    )
)

MIGRATIONS.append(
    (
        "0013_team",
        # The team of a shared server (abp_tui.store.team): who may open a session over SSH,
        # with which public key and role. The key, not a flag, names the person: one key is one
        # member. Every change is recorded in team_audit (append-only), apart from the study
        # audit log a publication bundle carries (key fingerprints are not the study's).
        """
CREATE TABLE team_members (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('reviewer', 'adjudicator', 'coordinator')),
    public_key TEXT NOT NULL,
    fingerprint TEXT NOT NULL UNIQUE,
    added_by TEXT NOT NULL,
    added_at TEXT NOT NULL
);
CREATE TABLE team_audit (
    pk INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('add', 'role', 'remove')),
    name TEXT NOT NULL,
    role TEXT,
    fingerprint TEXT NOT NULL,
    authorized_keys TEXT NOT NULL
);
CREATE TRIGGER team_audit_no_update BEFORE UPDATE ON team_audit
BEGIN SELECT RAISE(ABORT, 'the team audit is append-only: it is never changed'); END;
CREATE TRIGGER team_audit_no_delete BEFORE DELETE ON team_audit
BEGIN SELECT RAISE(ABORT, 'the team audit is append-only: it is never deleted'); END;
""",
    )
)

MIGRATIONS.append(
    (
        "0014_allocation_draws",
        # Active allocation (abp_tui.stats.allocation): for a design with a human budget, each
        # item's uncertainty (the AI judges' distrust when the plan was stored), the probability
        # it had of going to people and whether the seeded draw sent it. Written once with the
        # plan, in the same transaction; only drawn items are assigned to reviewers.
        """
CREATE TABLE allocation_draws (
    design_pk INTEGER NOT NULL REFERENCES designs(pk),
    item_pk INTEGER NOT NULL REFERENCES items(pk),
    uncertainty REAL NOT NULL CHECK (uncertainty >= 0),
    probability REAL NOT NULL CHECK (probability > 0 AND probability <= 1),
    drawn INTEGER NOT NULL CHECK (drawn IN (0, 1)),
    draw_seed INTEGER NOT NULL,
    PRIMARY KEY (design_pk, item_pk)
);
""",
    )
)

MIGRATIONS.append(
    (
        "0015_workstation_summaries",
        # What the workstation shows of a large study, read without reading it whole
        # (abp_tui.store.queue_pages, abp_tui.store.task_order, abp_tui.store.overview):
        # queue_summaries counts each reviewer's items of a design by the status of their
        # latest revision, kept in step by triggers on assignments, judgments and designs
        # (filled here from what is stored); task_order holds each study's current tasks in
        # natural order (T2 before T10), rebuilt after an import, with the tasks it was built
        # from (task_order_stamps) so a reader can tell it is stale; the indexes count a
        # study's runs by condition and by task, and its current tasks, from the index alone.
        """
CREATE TABLE queue_summaries (
    design_pk INTEGER NOT NULL,
    reviewer TEXT NOT NULL,
    assigned INTEGER NOT NULL,
    submitted INTEGER NOT NULL,
    drafts INTEGER NOT NULL,
    PRIMARY KEY (design_pk, reviewer)
);
INSERT INTO queue_summaries (design_pk, reviewer, assigned, submitted, drafts)
SELECT i.design_pk, a.reviewer, COUNT(*),
  SUM(CASE WHEN l.status = 'submitted' THEN 1 ELSE 0 END),
  SUM(CASE WHEN l.status = 'draft' THEN 1 ELSE 0 END)
FROM assignments a JOIN items i ON i.pk = a.item_pk
LEFT JOIN (
  SELECT j.item_pk, j.reviewer, j.status FROM judgments j
  WHERE j.revision = (SELECT MAX(revision) FROM judgments k
                      WHERE k.item_pk = j.item_pk AND k.reviewer = j.reviewer)
) l ON l.item_pk = a.item_pk AND l.reviewer = a.reviewer
GROUP BY i.design_pk, a.reviewer;
CREATE TRIGGER queue_summaries_assigned AFTER INSERT ON assignments
BEGIN INSERT INTO queue_summaries (design_pk, reviewer, assigned, submitted, drafts)
SELECT i.design_pk, NEW.reviewer, 1,
  (SELECT status FROM judgments j WHERE j.item_pk = NEW.item_pk AND j.reviewer = NEW.reviewer
   ORDER BY j.revision DESC LIMIT 1) IS 'submitted',
  (SELECT status FROM judgments j WHERE j.item_pk = NEW.item_pk AND j.reviewer = NEW.reviewer
   ORDER BY j.revision DESC LIMIT 1) IS 'draft'
FROM items i WHERE i.pk = NEW.item_pk
ON CONFLICT (design_pk, reviewer) DO UPDATE SET assigned = assigned + excluded.assigned,
  submitted = submitted + excluded.submitted, drafts = drafts + excluded.drafts
; END;
CREATE TRIGGER queue_summaries_unassigned AFTER DELETE ON assignments
BEGIN UPDATE queue_summaries SET assigned = assigned - 1,
  submitted = submitted - ((SELECT status FROM judgments j WHERE j.item_pk = OLD.item_pk
    AND j.reviewer = OLD.reviewer ORDER BY j.revision DESC LIMIT 1) IS 'submitted'),
  drafts = drafts - ((SELECT status FROM judgments j WHERE j.item_pk = OLD.item_pk
    AND j.reviewer = OLD.reviewer ORDER BY j.revision DESC LIMIT 1) IS 'draft')
WHERE design_pk = (SELECT design_pk FROM items WHERE pk = OLD.item_pk)
  AND reviewer = OLD.reviewer
; END;
CREATE TRIGGER queue_summaries_judged AFTER INSERT ON judgments
WHEN NOT EXISTS (SELECT 1 FROM judgments k WHERE k.item_pk = NEW.item_pk
    AND k.reviewer = NEW.reviewer AND k.revision > NEW.revision)
  AND EXISTS (SELECT 1 FROM assignments a WHERE a.item_pk = NEW.item_pk
    AND a.reviewer = NEW.reviewer)
BEGIN UPDATE queue_summaries SET
  submitted = submitted + (NEW.status = 'submitted') - ((SELECT status FROM judgments k
    WHERE k.item_pk = NEW.item_pk AND k.reviewer = NEW.reviewer AND k.revision < NEW.revision
    ORDER BY k.revision DESC LIMIT 1) IS 'submitted'),
  drafts = drafts + (NEW.status = 'draft') - ((SELECT status FROM judgments k
    WHERE k.item_pk = NEW.item_pk AND k.reviewer = NEW.reviewer AND k.revision < NEW.revision
    ORDER BY k.revision DESC LIMIT 1) IS 'draft')
WHERE design_pk = (SELECT design_pk FROM items WHERE pk = NEW.item_pk)
  AND reviewer = NEW.reviewer
; END;
CREATE TRIGGER queue_summaries_design_deleted AFTER DELETE ON designs
BEGIN DELETE FROM queue_summaries WHERE design_pk = OLD.pk; END;
CREATE TABLE task_order (
    study_id TEXT NOT NULL,
    rank INTEGER NOT NULL,
    task_pk INTEGER NOT NULL,
    PRIMARY KEY (study_id, rank)
);
CREATE TABLE task_order_stamps (
    study_id TEXT PRIMARY KEY,
    tasks INTEGER NOT NULL,
    last_pk INTEGER NOT NULL
);
CREATE INDEX tasks_current ON tasks (study_id, current, id);
CREATE INDEX runs_study_counts ON runs (
    study_id, current, condition_pk, origin_status, excluded_reason, trace_pk
);
CREATE INDEX runs_task ON runs (task_pk, current);
""",
    )
)

MIGRATIONS.append(
    (
        "0016_design_masking",
        # The well-known names a design's masker may leave where they reveal nobody
        # (abp_tui.analysis.masking.Masker.loose), worked out from the study's own identities
        # when the design is made and kept beside it, outside its hashed document: a design
        # made before has none, and its reviewers see every well-known name masked, as before.
        """
CREATE TABLE design_masking (
    design_pk INTEGER PRIMARY KEY,
    loose TEXT NOT NULL
);
CREATE TRIGGER design_masking_design_deleted AFTER DELETE ON designs
BEGIN DELETE FROM design_masking WHERE design_pk = OLD.pk; END;
""",
    )
)
