"""The household app's tables: households, members and their lists."""

from __future__ import annotations

from ..store import Migration, Schema

HOUSEHOLD_SCHEMA = Schema(
    "household",
    (
        Migration(
            "0003_household",
            """
            CREATE TABLE households (
                name TEXT PRIMARY KEY,
                created_at TEXT NOT NULL
            );
            CREATE TABLE household_members (
                household TEXT NOT NULL REFERENCES households (name) ON DELETE CASCADE,
                "user" TEXT NOT NULL,
                created_at TEXT NOT NULL,
                PRIMARY KEY (household, "user")
            );
            CREATE INDEX household_members_user ON household_members ("user");
            CREATE TABLE shopping_items (
                id TEXT PRIMARY KEY,
                household TEXT NOT NULL REFERENCES households (name) ON DELETE CASCADE,
                name TEXT NOT NULL,
                quantity INTEGER NOT NULL CHECK (quantity >= 1),
                added_by TEXT NOT NULL,
                created_at TEXT NOT NULL
            );
            CREATE INDEX shopping_items_household ON shopping_items (household, created_at);
            CREATE TABLE events (
                id TEXT PRIMARY KEY,
                household TEXT NOT NULL REFERENCES households (name) ON DELETE CASCADE,
                title TEXT NOT NULL,
                start_at TEXT NOT NULL,
                end_at TEXT,
                note TEXT,
                added_by TEXT NOT NULL,
                created_at TEXT NOT NULL
            );
            CREATE INDEX events_household_start ON events (household, start_at);
            CREATE TABLE todos (
                id TEXT PRIMARY KEY,
                household TEXT NOT NULL REFERENCES households (name) ON DELETE CASCADE,
                title TEXT NOT NULL,
                due TEXT,
                done_at TEXT,
                done_by TEXT,
                added_by TEXT NOT NULL,
                created_at TEXT NOT NULL
            );
            CREATE INDEX todos_household_open ON todos (household, done_at);
            CREATE TABLE expenses (
                id TEXT PRIMARY KEY,
                household TEXT NOT NULL REFERENCES households (name) ON DELETE CASCADE,
                amount_yen INTEGER NOT NULL CHECK (amount_yen > 0),
                category TEXT NOT NULL,
                note TEXT,
                spent_on TEXT NOT NULL,
                added_by TEXT NOT NULL,
                created_at TEXT NOT NULL
            );
            CREATE INDEX expenses_household_day ON expenses (household, spent_on);
            CREATE TABLE anniversaries (
                id TEXT PRIMARY KEY,
                household TEXT NOT NULL REFERENCES households (name) ON DELETE CASCADE,
                title TEXT NOT NULL,
                day TEXT NOT NULL,
                note TEXT,
                added_by TEXT NOT NULL,
                created_at TEXT NOT NULL
            );
            CREATE INDEX anniversaries_household ON anniversaries (household, day);
            """,
        ),
        # the household's IANA time zone (NULL: not chosen yet, the server's own zone is used)
        Migration("0016_household_time_zone", "ALTER TABLE households ADD COLUMN time_zone TEXT;"),
        # ticked off in the shopping panel (and ticked back): kept on the list, struck through
        Migration(
            "0017_shopping_checked",
            """
            ALTER TABLE shopping_items ADD COLUMN checked_at TEXT;
            ALTER TABLE shopping_items ADD COLUMN checked_by TEXT;
            """,
        ),
        # an anniversary is the household's (scope household/<name>) or one member's own
        # (household/<name>/user/<member>): the memory scopes' rule, read the same way
        Migration(
            "0040_anniversary_scope",
            """
            ALTER TABLE anniversaries ADD COLUMN scope TEXT;
            UPDATE anniversaries SET scope = 'household/' || household WHERE scope IS NULL;
            """,
        ),
        # the household's recipe book; an ingredient's key is its name folded (see _recipes)
        Migration(
            "0041_recipes",
            """
            CREATE TABLE recipes (
                id TEXT PRIMARY KEY,
                household TEXT NOT NULL REFERENCES households (name) ON DELETE CASCADE,
                name TEXT NOT NULL,
                steps TEXT NOT NULL,
                tags TEXT NOT NULL,
                source_url TEXT,
                added_by TEXT NOT NULL,
                created_at TEXT NOT NULL
            );
            CREATE INDEX recipes_household ON recipes (household, name);
            CREATE TABLE recipe_ingredients (
                recipe TEXT NOT NULL REFERENCES recipes (id) ON DELETE CASCADE,
                household TEXT NOT NULL,
                position INTEGER NOT NULL,
                name TEXT NOT NULL,
                amount TEXT,
                key TEXT NOT NULL,
                PRIMARY KEY (recipe, position)
            );
            CREATE INDEX recipe_ingredients_household ON recipe_ingredients (household, key);
            """,
        ),
        # each member's NISA purchases (at cost, by frame) and holdings (a fund's latest value);
        # private to the owner (scope household/<name>/user/<owner>) unless shared
        Migration(
            "0042_nisa",
            """
            CREATE TABLE nisa_contributions (
                id TEXT PRIMARY KEY,
                household TEXT NOT NULL REFERENCES households (name) ON DELETE CASCADE,
                owner TEXT NOT NULL,
                frame TEXT NOT NULL CHECK (frame IN ('tsumitate', 'growth')),
                fund TEXT NOT NULL,
                amount_yen INTEGER NOT NULL CHECK (amount_yen > 0),
                day TEXT NOT NULL,
                scope TEXT NOT NULL,
                added_by TEXT NOT NULL,
                created_at TEXT NOT NULL
            );
            CREATE INDEX nisa_contributions_owner ON nisa_contributions (household, owner, day);
            CREATE TABLE nisa_holdings (
                id TEXT PRIMARY KEY,
                household TEXT NOT NULL REFERENCES households (name) ON DELETE CASCADE,
                owner TEXT NOT NULL,
                frame TEXT NOT NULL CHECK (frame IN ('tsumitate', 'growth')),
                fund TEXT NOT NULL,
                value_yen INTEGER NOT NULL CHECK (value_yen >= 0),
                as_of TEXT NOT NULL,
                scope TEXT NOT NULL,
                added_by TEXT NOT NULL,
                created_at TEXT NOT NULL
            );
            CREATE UNIQUE INDEX nisa_holdings_fund ON nisa_holdings (household, owner, frame, fund);
            """,
        ),
        # who paid an expense (NULL: whoever recorded it) and the household's split ratio ("6:4",
        # one weight per member in order; no row: even)
        Migration(
            "0043_expense_split",
            """
            ALTER TABLE expenses ADD COLUMN paid_by TEXT;
            CREATE TABLE household_splits (
                household TEXT PRIMARY KEY REFERENCES households (name) ON DELETE CASCADE,
                ratio TEXT NOT NULL
            );
            """,
        ),
        # an event or a to-do is the household's (scope household/<name>) or one member's own
        # (household/<name>/user/<member>): the one visibility rule, so a private one is shown and
        # reminded to its owner alone
        Migration(
            "0044_h21_event_todo_scope",
            """
            ALTER TABLE events ADD COLUMN scope TEXT;
            UPDATE events SET scope = 'household/' || household WHERE scope IS NULL;
            ALTER TABLE todos ADD COLUMN scope TEXT;
            UPDATE todos SET scope = 'household/' || household WHERE scope IS NULL;
            """,
        ),
        # a recurring to-do's rule as JSON data (see _recurrence); NULL: done once and for all
        Migration("0045_h21_todo_recurrence", "ALTER TABLE todos ADD COLUMN recur TEXT;"),
    ),
)
