/*
 * The listening tracker. MPD says when its player changes, not while a
 * song plays on, so the position is the elapsed time at the last event
 * plus the time since; it is saved at every event and, while an episode
 * plays, every 30 s, so a crash loses at most that much.
 *
 * That reckoning goes on whether MPD plays or not: an MPD that hangs
 * (0.23 on a dropped connection) says nothing, and the time since its
 * last word counts as played. So an episode is listened only on MPD's
 * word: an elapsed time it gave at an event, or its leaving the song at
 * an event while the reckoning is in the song's tail, which is where a
 * song that plays to its end ends. Never on a checkpoint's reckoning
 * alone, nor when MPD went away.
 *
 * After a long pause an episode plays on a little before where it was
 * ([listening] rewind_after_pause): when MPD plays on after a pause the
 * tracker saw begin, and when a saved position is resumed, by the time
 * since the episode last played.
 */
#include "listening/tracker.h"

#include "core/identity.h"
#include "core/rewind.h"
#include "listening/queue.h"
#include "playlists/lists.h"
#include "relay/relay.h"

#include <string.h>

#define CHECKPOINT_SECONDS 30
#define RESUME_BEFORE      5    /* seconds before the saved position */
#define RESUME_WITHIN_MS   3000 /* a start this close to 0 is "from the top" */
#define RESUME_FROM        10   /* seconds: less is not worth a seek */
#define RESUME_DELAY_MS    400  /* after the start, before the seek */
#define RETRY_DELAY_MS     1500 /* the same, when a first seek failed */
#define RESUME_TRIES       2    /* failed resumes before giving up */

static gint64
now_us(void)
{
	return g_get_monotonic_time();
}

/*
 * Listened in its last 5 %, or its last minute (the settings say how
 * much), but for a minute no more than a tenth of it: a short episode is
 * not "done" a minute in.
 */
gboolean
bridge_tracker_is_done(const BridgeConfig *config, gint64 position_s,
                       gint64 duration_s)
{
	gint64 tail;

	if (duration_s <= 0)
		return FALSE;
	tail = MAX(duration_s * config->listened_percent / 100,
	           MIN((gint64)config->listened_seconds, duration_s / 10));
	return position_s >= duration_s - tail;
}

/* What MPD said of the episode it was on, as its position is taken. */
typedef enum {
	SAID_NOTHING, /* a checkpoint, or MPD went away: the reckoning alone */
	SAID_ELAPSED, /* where it is: an elapsed time MPD gave just now */
	SAID_ENDED,   /* MPD is on another song now, or stopped */
} Said;

/*
 * Where the episode MPD was on has got to, saved; listened when @said
 * says so: SAID_ELAPSED with @said_ms in its tail, or SAID_ENDED with
 * the reckoning there. A listener who stops or skips early leaves the
 * reckoning before the tail; at another speed it counts in the
 * episode's own time, as MPD's elapsed does.
 */
static void
account(Bridge *bridge, gint64 now, Said said, gint64 said_ms)
{
	BridgeTracking *t = &bridge->tracking;
	BridgeEpisode *episode;
	gint64 position_ms;
	gint64 duration_s;
	gint64 before;
	gint64 heard_ms;
	gboolean was_listened;

	/*
	 * Stopped: the position was taken as it stopped; MPD now says 0.
	 * About to resume: the start from 0 must not overwrite it either.
	 */
	if (t->episode_id == NULL || t->state == BRIDGE_PLAYER_STOP ||
	    t->resume_timer != 0 || t->held)
		return;
	episode = bridge_store_find_episode(bridge->store, t->episode_id);
	if (episode == NULL)
		return;
	before = episode->position;
	was_listened = episode->listened;
	position_ms = t->elapsed_ms;
	if (t->state == BRIDGE_PLAYER_PLAY)
		position_ms +=
		        bridge_tracker_played_ms(t, (now - t->at) / 1000);
	duration_s =
	        t->duration_ms > 0 ? t->duration_ms / 1000 : episode->duration;
	if (duration_s > 0)
		position_ms = MIN(position_ms, duration_s * 1000);
	/*
	 * Past the bytes the relay had when it gave the host up, MPD got
	 * zeros: the reckoning ran on while MPD waited for them. Asked of
	 * the relay here, not told by its news, which MPD's own event of
	 * the song's end may come before.
	 */
	if (said != SAID_ELAPSED && duration_s > 0) {
		double share = bridge_relay_gone_share(bridge, episode);

		if (share > 0)
			position_ms = MIN(position_ms,
			                  (gint64)(share * duration_s * 1000));
	}
	episode->position = position_ms / 1000;
	/* Paused, it did not play since: a rewind counts from the pause. */
	if (t->state == BRIDGE_PLAYER_PLAY)
		episode->last_played = g_get_real_time() / G_USEC_PER_SEC;
	if (said == SAID_ELAPSED)
		heard_ms = said_ms;
	else if (said == SAID_ENDED)
		heard_ms = position_ms;
	else
		heard_ms = -1;
	if (!episode->listened && heard_ms >= 0 &&
	    bridge_tracker_is_done(bridge->config, heard_ms / 1000,
	                           duration_s)) {
		bridge_lists_set_listened(bridge, episode, TRUE);
		g_message("listened to %s", episode->title);
		bridge_tell_episode(bridge, BRIDGE_NEWS_LISTENED, episode);
	}
	t->elapsed_ms = position_ms;
	t->at = now;
	/* A line in the state's journal, one with the end above if any. */
	bridge_changed_episode(bridge, episode);
	if (episode->position != before || episode->listened != was_listened)
		bridge_tell_episode(bridge, BRIDGE_NEWS_PLAYED, episode);
}

static gboolean
on_checkpoint(gpointer data)
{
	Bridge *bridge = data;

	account(bridge, now_us(), SAID_NOTHING, 0);
	bridge_save_soon(bridge);
	return G_SOURCE_CONTINUE;
}

typedef struct {
	Bridge *bridge;
	char *episode_id;
	guint song_id;
	guint target_s;
	gint64 sought_at; /* now_us() of the seek */
	guint looks;      /* times the check looked and could not tell yet */
} ResumeCheck;

static void
mark_unseekable(Bridge *bridge, const char *episode_id, const char *title,
                const char *why)
{
	BridgeTracking *t = &bridge->tracking;

	if (t->unseekable == NULL)
		t->unseekable = g_hash_table_new_full(g_str_hash, g_str_equal,
		                                      g_free, NULL);
	if (g_hash_table_add(t->unseekable, g_strdup(episode_id)))
		g_warning("cannot resume %s: %s; it will play from the top",
		          title, why);
}

/* Resumes of @episode_id that MPD failed since the last that took. */
static guint
resume_tries(const BridgeTracking *t, const char *episode_id)
{
	if (t->tries == NULL)
		return 0;
	return GPOINTER_TO_UINT(g_hash_table_lookup(t->tries, episode_id));
}

static void
count_failed_resume(BridgeTracking *t, const char *episode_id)
{
	if (t->tries == NULL)
		t->tries = g_hash_table_new_full(g_str_hash, g_str_equal,
		                                 g_free, NULL);
	g_hash_table_insert(t->tries, g_strdup(episode_id),
	                    GUINT_TO_POINTER(resume_tries(t, episode_id) + 1));
}

/*
 * Whether a resume that MPD's decoder failed (@why: MPD's answer, or NULL
 * when MPD just dropped the song) may work when tried again. MPD 0.24's
 * decoder fails a seek that comes as it starts the stream ("Decoder is
 * dead", "Decoder failed to seek") when the machine is busy, and the same
 * seek works a moment later; MPD 0.23's decoders fail only on a stream
 * that cannot seek. "Not seekable" is final on both.
 */
static gboolean
may_try_again(Bridge *bridge, const char *why)
{
	return bridge_mpd_protocol_at_least(bridge->mpd, 0, 24) &&
	       (why == NULL || strstr(why, "Not seekable") == NULL);
}

static void
resume_check_free(gpointer data)
{
	ResumeCheck *check = data;

	g_free(check->episode_id);
	g_free(check);
}

/*
 * A seek MPD took said the song was at its target, and no event says
 * that the song plays on from the top instead (MPD 0.24 does that with an
 * MP3 it cannot seek): the position counts from where MPD really is.
 */
static void
rebase(Bridge *bridge, const BridgePlayerStatus *status)
{
	BridgeTracking *t = &bridge->tracking;

	if (t->song_id != status->song_id || t->state != status->state)
		return;
	t->elapsed_ms = status->elapsed_ms;
	t->at = now_us();
	account(bridge, t->at, SAID_ELAPSED, status->elapsed_ms);
}

/*
 * MPD accepts a seek on a stream before its decoder finds it cannot
 * seek: a moment later the song plays on from the top, and that is the
 * answer. A seek that took has MPD at the target (a second's slack for
 * where a decoder lands); MPD anywhere else than near the top is where
 * the listener sought meanwhile. On a busy machine MPD may not have
 * played a second of anything yet (still starting, or still seeking): then
 * the check looks again, a few times, before it takes the stream as one
 * that cannot seek.
 */
#define RESUME_LOOKS 8
static gboolean
check_resumed(gpointer data)
{
	ResumeCheck *check = data;
	Bridge *bridge = check->bridge;
	BridgeTracking *t = &bridge->tracking;
	g_auto(BridgePlayerStatus) status = { 0 };
	g_autoptr(GError) error = NULL;
	const BridgeEpisode *episode =
	        bridge_store_find_episode(bridge->store, check->episode_id);

	t->resume_check = 0;
	if (episode == NULL || bridge->mpd == NULL ||
	    !bridge_mpd_player_status(bridge->mpd, &status, &error)) {
		/* Nothing to learn. */
	} else if (status.song_id != check->song_id) {
		/*
		 * MPD dropped the song when its decoder could not seek: it
		 * plays again, and resumes again if that may work. Once the
		 * check has seen the song play on, a change of song is the
		 * listener's.
		 */
		if (check->looks > 0)
			return G_SOURCE_REMOVE;
		if (may_try_again(bridge, NULL))
			count_failed_resume(t, episode->id);
		else
			mark_unseekable(bridge, episode->id, episode->title,
			                "the stream cannot seek");
		if (!bridge_mpd_play_id(bridge->mpd, check->song_id, &error))
			g_message("cannot play %s again: %s", episode->title,
			          error->message);
	} else if (status.elapsed_ms + 1000 >= (gint64)check->target_s * 1000) {
		if (t->tries != NULL)
			g_hash_table_remove(t->tries, episode->id);
		g_message("resumed %s at %u s", episode->title,
		          check->target_s);
	} else if (status.state != BRIDGE_PLAYER_PLAY ||
	           status.elapsed_ms >
	                   (now_us() - check->sought_at) / 1000 + 2000) {
		/* Paused, stopped or sought elsewhere: nothing to learn. */
	} else if (status.elapsed_ms < 1000 && ++check->looks < RESUME_LOOKS) {
		t->resume_check = g_source_get_id(g_main_current_source());
		return G_SOURCE_CONTINUE;
	} else {
		mark_unseekable(bridge, episode->id, episode->title,
		                "the stream cannot seek");
		rebase(bridge, &status);
	}
	return G_SOURCE_REMOVE;
}

/* Seconds since @episode last played here; 0 when it never did. */
static gint64
since_played(const BridgeEpisode *episode)
{
	if (episode->last_played <= 0)
		return 0;
	return MAX(g_get_real_time() / G_USEC_PER_SEC - episode->last_played,
	           0);
}

static void
log_back(guint back_s, gint64 pause_s, const BridgeEpisode *episode)
{
	g_autofree char *pause = bridge_rewind_describe_pause(pause_s);

	g_message("back %u s after a pause of %s: %s", back_s, pause,
	          episode->title);
}

static void
resume(Bridge *bridge, const BridgeEpisode *episode, guint song_id)
{
	BridgeTracking *t = &bridge->tracking;
	g_autoptr(GError) error = NULL;
	gint64 pause_s = since_played(episode);
	guint back = bridge_rewind_seconds(&bridge->config->rewind, pause_s);
	guint to = (guint)MAX(episode->position - RESUME_BEFORE - back, 0);
	ResumeCheck *check;
	guint moved;

	/*
	 * A song a client queued by its host's URL moves to the relay's
	 * right there: one new start instead of two.
	 */
	moved = bridge_queue_move_playing_at(bridge, (gint64)to * 1000);
	if (moved != 0) {
		song_id = moved;
		t->elapsed_ms = (gint64)to * 1000;
		t->at = now_us();
		if (back > 0)
			log_back(back, pause_s, episode);
	} else if (!bridge_mpd_seek(bridge->mpd, song_id, to, &error)) {
		/*
		 * A refused seek may cost the song too: with "Decoder failed
		 * to seek" MPD drops it and plays the next, and the tracker
		 * then plays it again (and counts the failure then).
		 */
		if (!may_try_again(bridge, error->message))
			mark_unseekable(bridge, episode->id, episode->title,
			                error->message);
	} else {
		t->elapsed_ms = (gint64)to * 1000;
		t->at = now_us();
		if (back > 0)
			log_back(back, pause_s, episode);
	}
	check = g_new0(ResumeCheck, 1);
	check->bridge = bridge;
	check->episode_id = g_strdup(episode->id);
	check->song_id = song_id;
	check->target_s = to;
	check->sought_at = now_us();
	/* Song ids are MPD's: a check outlives neither MPD nor the song. */
	g_clear_handle_id(&t->resume_check, g_source_remove);
	t->resume_check =
	        g_timeout_add_full(G_PRIORITY_DEFAULT, 1500, check_resumed,
	                           check, resume_check_free);
}

/*
 * A seek right as a stream opens is accepted before MPD knows whether the
 * stream can seek, and a stream that cannot is then dropped from play. A
 * moment later MPD answers a seek it cannot do with an error instead.
 */
static gboolean
on_resume_due(gpointer data)
{
	Bridge *bridge = data;
	BridgeTracking *t = &bridge->tracking;
	g_auto(BridgePlayerStatus) status = { 0 };
	g_autoptr(GError) error = NULL;
	const BridgeEpisode *episode;

	t->resume_timer = 0;
	if (t->episode_id == NULL || t->state != BRIDGE_PLAYER_PLAY ||
	    !bridge_mpd_player_status(bridge->mpd, &status, &error) ||
	    status.song_id != t->song_id ||
	    status.elapsed_ms >= t->resume_below_ms)
		return G_SOURCE_REMOVE;
	episode = bridge_store_find_episode(bridge->store, t->episode_id);
	/* A phone's position may have come meanwhile, or said it was done. */
	if (episode != NULL && !episode->listened &&
	    episode->position >= RESUME_FROM)
		resume(bridge, episode, status.song_id);
	return G_SOURCE_REMOVE;
}

/*
 * Seeks in a moment, unless MPD has got to @below_ms by then. A second
 * try waits longer; after two that failed, the episode plays from the
 * top.
 */
static void
schedule_resume(Bridge *bridge, const BridgeEpisode *episode, gint64 below_ms)
{
	BridgeTracking *t = &bridge->tracking;
	guint tries = resume_tries(t, episode->id);
	guint delay_ms = tries > 0 ? RETRY_DELAY_MS : RESUME_DELAY_MS;

	/* Time for the pull that asks the phone where it stopped. */
	delay_ms = MAX(delay_ms, bridge->resume_wait_ms);

	if (tries >= RESUME_TRIES)
		mark_unseekable(bridge, episode->id, episode->title,
		                "MPD failed to seek it twice");
	if (t->unseekable != NULL &&
	    g_hash_table_contains(t->unseekable, episode->id))
		return;
	t->resume_below_ms = below_ms + bridge_tracker_played_ms(
	                                        t, delay_ms - RESUME_DELAY_MS);
	g_clear_handle_id(&t->resume_timer, g_source_remove);
	t->resume_timer = g_timeout_add(delay_ms, on_resume_due, bridge);
}

/*
 * MPD gave up the episode it was on because a seek failed in its decoder:
 * it answers "Decoder failed to seek" (or "Decoder is dead") and plays the
 * next song, or stops. MPD 0.24.4 does this with a seek back in a remote
 * MP3, 0.23 with a seek in a stream that cannot seek. The error is new at
 * this event: MPD keeps it until the next play, seek or skip.
 */
static gboolean
dropped_on_seek(const BridgeTracking *t, const BridgePlayerStatus *status)
{
	return t->episode_id != NULL && t->state != BRIDGE_PLAYER_STOP &&
	       status->error != NULL &&
	       g_strcmp0(status->error, t->player_error) != 0 &&
	       (strstr(status->error, "seek") != NULL ||
	        strstr(status->error, "Decoder is dead") != NULL) &&
	       (status->song_id != t->song_id ||
	        status->state == BRIDGE_PLAYER_STOP);
}

/*
 * Plays @song_id again, which the tracker then sees as the episode
 * started again: it resumes where it was, or plays from the top if its
 * stream cannot seek. A failed seek of our own resume counts as one of
 * its tries, and its check has nothing more to learn.
 */
static void
put_back(Bridge *bridge, const char *episode_id, guint song_id, const char *why)
{
	BridgeTracking *t = &bridge->tracking;
	g_autoptr(GError) error = NULL;
	const BridgeEpisode *episode =
	        bridge_store_find_episode(bridge->store, episode_id);

	if (episode == NULL || episode->listened)
		return;
	if (t->resume_check == 0)
		g_message("MPD left %s when a seek failed (%s); playing it "
		          "again",
		          episode->title, why);
	else if (may_try_again(bridge, why))
		count_failed_resume(t, episode->id);
	else
		mark_unseekable(bridge, episode->id, episode->title, why);
	g_clear_handle_id(&t->resume_check, g_source_remove);
	if (!bridge_mpd_play_id(bridge->mpd, song_id, &error))
		g_message("cannot play %s again: %s", episode->title,
		          error->message);
}

/*
 * MPD plays on after a pause of @pause_s from @from_ms, where the pause
 * began: back as far as the settings say for a pause that long, never
 * before the start.
 */
static void
back_after_pause(Bridge *bridge, const BridgeEpisode *episode,
                 const BridgePlayerStatus *status, gint64 from_ms,
                 gint64 pause_s)
{
	BridgeTracking *t = &bridge->tracking;
	g_autoptr(GError) error = NULL;
	guint back = bridge_rewind_seconds(&bridge->config->rewind, pause_s);
	gint64 to_ms = MAX(from_ms - (gint64)back * 1000, 0);

	/* Moved while paused: the listener chose where it goes on. */
	if (back == 0 || ABS((gint64)status->elapsed_ms - from_ms) > 1000 ||
	    (t->unseekable != NULL &&
	     g_hash_table_contains(t->unseekable, episode->id)))
		return;
	/*
	 * MPD 0.24.4 fails some seeks back in a remote MP3 and leaves the
	 * song: then it plays again from where it was (put_back()).
	 */
	if (!bridge_mpd_seek_ms(bridge->mpd, status->song_id, to_ms, &error)) {
		g_message("cannot go back in %s: %s", episode->title,
		          error->message);
		return;
	}
	t->elapsed_ms = to_ms;
	t->at = now_us();
	log_back(back, pause_s, episode);
}

/*
 * How long the pause MPD plays on after lasted. A machine asleep stops
 * the monotonic clock and the real one may be set meanwhile, so the
 * longer of the two counts: a few seconds too many back do no harm.
 * A pause the tracker did not see begin counts from the last play.
 */
static gint64
pause_seconds(const BridgeTracking *t, const BridgeEpisode *episode, gint64 now)
{
	if (t->paused_at == 0)
		return since_played(episode);
	return MAX(now - t->paused_at, g_get_real_time() - t->paused_real) /
	       G_USEC_PER_SEC;
}

void
bridge_tracker_on_player(Bridge *bridge)
{
	BridgeTracking *t = &bridge->tracking;
	g_auto(BridgePlayerStatus) status = { 0 };
	g_autoptr(GError) error = NULL;
	gint64 now = now_us();
	BridgeEpisode *episode = NULL;
	g_autofree char *dropped_id = NULL;
	guint dropped_song = 0;
	BridgePlayerState was = t->state;
	gboolean changed;

	if (!bridge_mpd_player_status(bridge->mpd, &status, &error)) {
		account(bridge, now, SAID_NOTHING, 0);
		return;
	}
	/*
	 * A seek MPD's decoder failed ends the song too, but not where the
	 * reckoning (from the seek's target) says.
	 */
	if (dropped_on_seek(t, &status)) {
		dropped_id = g_strdup(t->episode_id);
		dropped_song = t->song_id;
		account(bridge, now, SAID_NOTHING, 0);
	} else if (status.song_id == t->song_id &&
	           status.state != BRIDGE_PLAYER_STOP) {
		/*
		 * The same song: where MPD says it is, not the time counted
		 * since the last event, which runs on while MPD waits for a
		 * stream (the relay retrying a host) and before a seek.
		 */
		if (t->state == BRIDGE_PLAYER_PLAY) {
			t->elapsed_ms = status.elapsed_ms;
			t->at = now;
		}
		account(bridge, now, SAID_ELAPSED, status.elapsed_ms);
	} else {
		account(bridge, now, SAID_ENDED, 0);
	}
	g_free(t->player_error);
	t->player_error = g_strdup(status.error);
	if (status.state != BRIDGE_PLAYER_STOP || status.uri != NULL)
		episode = bridge_identity_find_by_url(bridge, status.uri);
	/* Another song, or the same one started again after a stop. */
	changed =
	        episode == NULL || g_strcmp0(episode->id, t->episode_id) != 0 ||
	        status.song_id != t->song_id || t->state == BRIDGE_PLAYER_STOP;
	g_free(t->episode_id);
	t->episode_id = episode != NULL ? g_strdup(episode->id) : NULL;
	t->song_id = status.song_id;
	t->state = status.state;
	if (status.state != BRIDGE_PLAYER_STOP)
		t->elapsed_ms = status.elapsed_ms;
	/* MPD knows it once its decoder started, which may be after this. */
	if (changed || status.duration_ms > 0)
		t->duration_ms = status.duration_ms;
	t->at = now;
	if (episode != NULL && changed && status.state == BRIDGE_PLAYER_PLAY)
		bridge_tell_episode(bridge, BRIDGE_NEWS_STARTED, episode);
	/* With sync, a phone may know a place to resume at even so. */
	if (episode != NULL && changed && status.state == BRIDGE_PLAYER_PLAY &&
	    status.elapsed_ms < RESUME_WITHIN_MS && !episode->listened &&
	    (episode->position >= RESUME_FROM || bridge->resume_wait_ms > 0))
		schedule_resume(bridge, episode,
		                RESUME_WITHIN_MS + RESUME_DELAY_MS);
	/*
	 * First seen paused, as MPD restores itself after a restart: from a
	 * state file it wrote only when it last stopped cleanly, so perhaps
	 * long before where the listener got to. That position is not taken
	 * as theirs; when it plays on from behind the kept one, it resumes.
	 */
	if (changed)
		t->held =
		        episode != NULL && status.state == BRIDGE_PLAYER_PAUSE;
	else if (t->held && status.state == BRIDGE_PLAYER_PLAY) {
		t->held = FALSE;
		if (!episode->listened && episode->position >= RESUME_FROM &&
		    status.elapsed_ms / 1000 + RESUME_BEFORE <
		            episode->position)
			schedule_resume(bridge, episode,
			                status.elapsed_ms + RESUME_DELAY_MS +
			                        1000);
		else
			back_after_pause(bridge, episode, &status,
			                 status.elapsed_ms,
			                 since_played(episode));
	} else if (was == BRIDGE_PLAYER_PAUSE &&
	           status.state == BRIDGE_PLAYER_PLAY) {
		back_after_pause(bridge, episode, &status,
		                 t->paused_at != 0 ? t->paused_ms
		                                   : status.elapsed_ms,
		                 pause_seconds(t, episode, now));
	}
	/* The pause MPD is in: when it began, and where. */
	if (changed || status.state != BRIDGE_PLAYER_PAUSE) {
		t->paused_at = 0;
	} else if (was == BRIDGE_PLAYER_PLAY) {
		t->paused_at = now;
		t->paused_real = g_get_real_time();
		t->paused_ms = status.elapsed_ms;
	}
	if (episode != NULL && status.state == BRIDGE_PLAYER_PLAY) {
		if (t->checkpoint == 0)
			t->checkpoint = g_timeout_add_seconds(
			        CHECKPOINT_SECONDS, on_checkpoint, bridge);
	} else {
		g_clear_handle_id(&t->checkpoint, g_source_remove);
	}
	if (dropped_id != NULL)
		put_back(bridge, dropped_id, dropped_song, status.error);
}

void
bridge_tracker_on_host(Bridge *bridge, const BridgeEpisode *episode)
{
	BridgeTracking *t = &bridge->tracking;

	/* Where MPD really is, not where time says it would be. */
	if (g_strcmp0(t->episode_id, episode->id) == 0)
		bridge_tracker_on_player(bridge);
}

void
bridge_tracker_stop(Bridge *bridge)
{
	BridgeTracking *t = &bridge->tracking;
	g_auto(BridgePlayerStatus) status = { 0 };

	/*
	 * Saved as far as it got: where MPD says it is while MPD is still
	 * there, which counting the time since the last event cannot know
	 * (an output that buffered ahead, a stall). MPD did not say it
	 * ended.
	 */
	if (t->episode_id != NULL && !t->held && bridge->mpd != NULL &&
	    bridge_mpd_player_status(bridge->mpd, &status, NULL) &&
	    status.song_id == t->song_id && status.state == t->state)
		rebase(bridge, &status);
	else
		account(bridge, now_us(), SAID_NOTHING, 0);
	g_clear_handle_id(&t->checkpoint, g_source_remove);
	g_clear_handle_id(&t->resume_timer, g_source_remove);
	g_clear_handle_id(&t->resume_check, g_source_remove);
	g_clear_pointer(&t->episode_id, g_free);
	g_clear_pointer(&t->player_error, g_free);
	t->state = BRIDGE_PLAYER_STOP;
	t->paused_at = 0;
	/* MPD may come back with other outputs on: choose again. */
	t->speed_wanted = 0;
}

gint64
bridge_tracker_position_ms(const BridgeTracking *t)
{
	gint64 at = t->elapsed_ms;

	if (t->state == BRIDGE_PLAYER_PLAY)
		at += bridge_tracker_played_ms(
		        t, (g_get_monotonic_time() - t->at) / 1000);
	return at;
}

static guint
speed_of(const BridgeTracking *t)
{
	return t->speed > 0 ? t->speed : 100;
}

gint64
bridge_tracker_played_ms(const BridgeTracking *t, gint64 wall_ms)
{
	return wall_ms * speed_of(t) / 100;
}

gint64
bridge_tracker_wall_ms(const BridgeTracking *t, gint64 played_ms)
{
	return played_ms * 100 / speed_of(t);
}

void
bridge_tracker_clear(Bridge *bridge)
{
	BridgeTracking *t = &bridge->tracking;

	g_clear_handle_id(&t->checkpoint, g_source_remove);
	g_clear_handle_id(&t->resume_timer, g_source_remove);
	g_clear_handle_id(&t->resume_check, g_source_remove);
	g_clear_pointer(&t->episode_id, g_free);
	g_clear_pointer(&t->player_error, g_free);
	g_clear_pointer(&t->unseekable, g_hash_table_unref);
	g_clear_pointer(&t->tries, g_hash_table_unref);
}
