/*
 * Between the files of syncing with phones: phone-sync.c (the daemon's
 * hooks and timers), phone-sync-round.c (a round with the server: what is
 * pushed, the requests on a worker thread, what the server took),
 * phone-sync-apply.c (what a pull brought, applied to the state),
 * phone-sync-state.c (what sync remembers, in the state file and in the
 * daemon, and the clock it stamps with) and phone-sync-command.c (`sync`
 * and its status text). All run on the main loop.
 */
#ifndef BRIDGE_PHONE_SYNC_PRIVATE_H
#define BRIDGE_PHONE_SYNC_PRIVATE_H

#include "phone/gpodder.h"
#include "phone/phone-sync.h"

/* What a round does: a pull, a push, or both (the two or'ed). */
typedef enum {
	BRIDGE_PHONE_SYNC_PULL = 1 << 0,
	BRIDGE_PHONE_SYNC_PUSH = 1 << 1,
} BridgePhoneSyncKind;

/* What sync holds in the daemon, besides the state. */
struct BridgePhoneSync {
	guint pull_timer;          /* source id; 0 when none */
	guint push_timer;          /* the same */
	guint retry_timer;         /* the same */
	gboolean busy;             /* a round is out */
	BridgePhoneSyncKind again; /* what to do once it is back; 0 for
	                              nothing */
	GPtrArray *waiting;        /* BridgeCall * of `sync now`, answered
	                              after the next whole round */
	GPtrArray *answering;      /* those the round out answers; NULL when
	                              none */
	GHashTable *held;     /* episode id -> BridgeGpodderAction *: for the
	                         episode playing when it came */
	guint failures;       /* rounds failed in a row */
	guint pulled_changes; /* of the last round, for `sync now` */
	guint pushed_changes;
	guint applied;
};

/* phone-sync.c */

/* Why no round can go now (a new string), or NULL. */
char *
bridge_phone_sync_dup_why_not(const Bridge *bridge);

/* phone-sync-round.c */

/*
 * Starts a round of @kind, or adds @kind to the next one when a round is
 * out. Without a server or a password, answers the waiting `sync now`
 * calls with why.
 */
void
bridge_phone_sync_start_round(Bridge *bridge, BridgePhoneSyncKind kind);

/* phone-sync-apply.c */

/*
 * A pull's answers: the changes to the subscriptions, the actions pulled
 * (with those kept from before) and the server's timestamp for the next
 * pull of actions.
 */
void
bridge_phone_sync_pulled(Bridge *bridge,
                         const BridgeGpodderSubscriptions *subscriptions,
                         GPtrArray *pulled, gint64 actions_since);

/* @action to @episode: where the phone stopped, or that it finished. */
void
bridge_phone_sync_apply_to(Bridge *bridge, BridgeEpisode *episode,
                           const BridgeGpodderAction *action);

/*
 * Applies @actions (BridgeGpodderAction *), newest change winning per
 * episode; those of episodes not known yet are kept in the state, to be
 * tried again after the next refresh. Without @apply (a clock not to be
 * trusted) all are kept.
 */
void
bridge_phone_sync_apply_actions(Bridge *bridge, GPtrArray *actions,
                                gboolean apply);

/* phone-sync-command.c */

/*
 * Answers @calls (BridgeCall *; may be NULL) of `sync now`: @error, or
 * what the last round pulled, applied and pushed.
 */
void
bridge_phone_sync_answer_calls(Bridge *bridge, GPtrArray *calls,
                               const GError *error);

/* phone-sync-state.c */

/* Now, in Unix seconds. */
gint64
bridge_phone_sync_now(void);

/* Whether the clock may stamp and judge actions ([sync] trust_clock). */
gboolean
bridge_phone_sync_clock_trusted(const Bridge *bridge);

/* Why no action is stamped, for messages; NULL when the clock is trusted. */
const char *
bridge_phone_sync_clock_note(const Bridge *bridge);

/* What sync holds in @bridge, made the first time. */
struct BridgePhoneSync *
bridge_phone_sync_get(Bridge *bridge);

/*
 * The [sync] group's numbers: subs_since and actions_since (the server's
 * timestamps), last_pull and last_push (Unix seconds); 0 when unset.
 */
gint64
bridge_phone_sync_get_int(const Bridge *bridge, const char *key);

void
bridge_phone_sync_set_int(Bridge *bridge, const char *key, gint64 value);

/* The URLs of the removed subscriptions not told yet; never NULL. */
char **
bridge_phone_sync_dup_removed(const Bridge *bridge);

/* Keeps @urls (char *) as those; none removes the key. */
void
bridge_phone_sync_set_removed(Bridge *bridge, GPtrArray *urls);

/*
 * The actions kept for episodes not known yet (BridgeGpodderAction *);
 * never NULL. A damaged list is dropped with a warning.
 */
GPtrArray *
bridge_phone_sync_dup_unmatched(const Bridge *bridge);

/* Keeps @actions for later: the newest, none older than a month. */
void
bridge_phone_sync_set_unmatched(Bridge *bridge, GPtrArray *actions);

/* Whether actions wait for their episode. */
gboolean
bridge_phone_sync_has_unmatched(const Bridge *bridge);

/* Keeps the last round's error @message; NULL forgets it. */
void
bridge_phone_sync_set_last_error(Bridge *bridge, const char *message);

/* The last round's error (a new string), or NULL after a success. */
char *
bridge_phone_sync_dup_last_error(const Bridge *bridge);

/* Whether the server knows this device. */
gboolean
bridge_phone_sync_is_registered(const Bridge *bridge);

/* Notes that the server knows this device; FALSE registers it again. */
void
bridge_phone_sync_set_registered(Bridge *bridge, gboolean registered);

#endif
