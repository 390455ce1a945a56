/*
 * Key names and rules follow the feed JSON contract: optional keys are
 * left out when empty, required keys are always written.
 */
#include "feed-json.h"

static void
member_int(JsonOut *json, const char *key, gint64 value)
{
	json_out_key(json, key);
	json_out_int(json, value);
}

static void
member_tristate(JsonOut *json, const char *key, FeedTristate value)
{
	if (value == FEED_TRISTATE_UNSET)
		return;
	json_out_key(json, key);
	json_out_bool(json, value == FEED_TRISTATE_TRUE);
}

static void
person(JsonOut *json, const FeedPerson *p)
{
	json_out_begin_object(json);
	json_out_key(json, "name");
	json_out_string(json, feed_person_get_name(p));
	json_out_key(json, "role");
	json_out_string(json, feed_person_get_role(p));
	json_out_key(json, "group");
	json_out_string(json, feed_person_get_group(p));
	json_out_key(json, "href");
	json_out_string(json, feed_person_get_href(p));
	json_out_key(json, "img");
	json_out_string(json, feed_person_get_image(p));
	json_out_end_object(json);
}

static void
enclosures(JsonOut *json, const FeedEpisode *episode)
{
	guint n = feed_episode_get_n_enclosures(episode);

	json_out_key(json, "enclosures");
	json_out_begin_array(json);
	for (guint i = 0; i < n; i++) {
		const FeedEnclosure *e = feed_episode_get_enclosure(episode, i);

		json_out_begin_object(json);
		json_out_key(json, "url");
		json_out_string(json, feed_enclosure_get_url(e));
		json_out_key(json, "mime_type");
		json_out_string(json, feed_enclosure_get_mime_type(e));
		member_int(json, "file_size", feed_enclosure_get_file_size(e));
		json_out_end_object(json);
	}
	json_out_end_array(json);
}

static void
alternate_enclosures(JsonOut *json, const FeedEpisode *episode)
{
	guint n = feed_episode_get_n_alternate_enclosures(episode);

	if (n == 0)
		return;
	json_out_key(json, "alternate_enclosures");
	json_out_begin_array(json);
	for (guint i = 0; i < n; i++) {
		const FeedAlternateEnclosure *a =
		        feed_episode_get_alternate_enclosure(episode, i);
		guint n_sources = feed_alternate_enclosure_get_n_sources(a);

		json_out_begin_object(json);
		json_out_member_string(
		        json, "mime_type",
		        feed_alternate_enclosure_get_mime_type(a));
		member_int(json, "file_size",
		           feed_alternate_enclosure_get_file_size(a));
		if (feed_alternate_enclosure_get_bitrate(a) > 0) {
			json_out_key(json, "bitrate");
			json_out_int(
			        json,
			        (gint64)feed_alternate_enclosure_get_bitrate(
			                a));
		}
		json_out_member_string(json, "title",
		                       feed_alternate_enclosure_get_title(a));
		json_out_key(json, "default");
		json_out_bool(json, feed_alternate_enclosure_is_default(a));
		json_out_key(json, "sources");
		json_out_begin_array(json);
		for (guint s = 0; s < n_sources; s++)
			json_out_string(
			        json,
			        feed_alternate_enclosure_get_source(a, s));
		json_out_end_array(json);
		json_out_end_object(json);
	}
	json_out_end_array(json);
}

static void
chapters(JsonOut *json, const FeedEpisode *episode)
{
	guint n = feed_episode_get_n_chapters(episode);

	if (n == 0)
		return;
	json_out_key(json, "chapters");
	json_out_begin_array(json);
	for (guint i = 0; i < n; i++) {
		const FeedChapter *c = feed_episode_get_chapter(episode, i);

		json_out_begin_object(json);
		member_int(json, "start", feed_chapter_get_start(c));
		json_out_key(json, "title");
		json_out_string(json, feed_chapter_get_title(c));
		json_out_member_string(json, "href", feed_chapter_get_href(c));
		json_out_member_string(json, "image",
		                       feed_chapter_get_image(c));
		json_out_end_object(json);
	}
	json_out_end_array(json);
}

static void
transcripts(JsonOut *json, const FeedEpisode *episode)
{
	guint n = feed_episode_get_n_transcripts(episode);

	if (n == 0)
		return;
	json_out_member_string(
	        json, "transcript_url",
	        feed_transcript_get_url(
	                feed_episode_get_transcript(episode, n - 1)));
	json_out_key(json, "transcripts");
	json_out_begin_array(json);
	for (guint i = 0; i < n; i++) {
		const FeedTranscript *t =
		        feed_episode_get_transcript(episode, i);

		json_out_begin_object(json);
		json_out_key(json, "url");
		json_out_string(json, feed_transcript_get_url(t));
		json_out_key(json, "type");
		json_out_string(json, feed_transcript_get_mime_type(t));
		json_out_member_string(json, "language",
		                       feed_transcript_get_language(t));
		json_out_member_string(json, "rel", feed_transcript_get_rel(t));
		json_out_end_object(json);
	}
	json_out_end_array(json);
}

static const char *
episode_type(FeedEpisodeType type)
{
	switch (type) {
	case FEED_EPISODE_TYPE_FULL:
		return "full";
	case FEED_EPISODE_TYPE_TRAILER:
		return "trailer";
	case FEED_EPISODE_TYPE_BONUS:
		return "bonus";
	default:
		return NULL;
	}
}

void
feedtool_json_episode(JsonOut *json, const FeedEpisode *episode)
{
	guint n_persons = feed_episode_get_n_persons(episode);

	json_out_begin_object(json);
	json_out_key(json, "guid");
	json_out_string(json, feed_episode_get_guid(episode));
	json_out_key(json, "title");
	json_out_string(json, feed_episode_get_title(episode));
	json_out_key(json, "link");
	json_out_string(json, feed_episode_get_link(episode));
	json_out_key(json, "description");
	json_out_string(json, feed_episode_get_description(episode));
	json_out_member_string(json, "description_html",
	                       feed_episode_get_description_html(episode));
	member_int(json, "published", feed_episode_get_published(episode));
	member_int(json, "total_time", feed_episode_get_total_time(episode));
	json_out_key(json, "payment_url");
	json_out_string(json, feed_episode_get_payment_url(episode));
	enclosures(json, episode);
	alternate_enclosures(json, episode);
	if (feed_episode_get_number(episode) > 0)
		member_int(json, "number", feed_episode_get_number(episode));
	if (feed_episode_get_season(episode) >= 0)
		member_int(json, "season", feed_episode_get_season(episode));
	if (feed_episode_get_podcast_episode(episode) > 0)
		member_int(json, "podcast_episode",
		           feed_episode_get_podcast_episode(episode));
	if (feed_episode_get_podcast_season(episode) >= 0)
		member_int(json, "podcast_season",
		           feed_episode_get_podcast_season(episode));
	json_out_member_string(
	        json, "type",
	        episode_type(feed_episode_get_episode_type(episode)));
	json_out_member_string(json, "subtitle",
	                       feed_episode_get_subtitle(episode));
	json_out_member_string(json, "itunes_author",
	                       feed_episode_get_itunes_author(episode));
	member_tristate(json, "explicit", feed_episode_get_explicit(episode));
	member_tristate(json, "block", feed_episode_get_block(episode));
	json_out_member_string(json, "episode_art_url",
	                       feed_episode_get_image_url(episode));
	chapters(json, episode);
	json_out_member_string(json, "chapters_json_url",
	                       feed_episode_get_chapters_url(episode));
	transcripts(json, episode);
	if (n_persons > 0) {
		json_out_key(json, "persons");
		json_out_begin_array(json);
		for (guint i = 0; i < n_persons; i++)
			person(json, feed_episode_get_person(episode, i));
		json_out_end_array(json);
	}
	json_out_end_object(json);
}

static void
owner(JsonOut *json, const FeedChannel *channel)
{
	const char *name = feed_channel_get_owner_name(channel);
	const char *email = feed_channel_get_owner_email(channel);

	if ((name == NULL || *name == '\0') &&
	    (email == NULL || *email == '\0'))
		return;
	json_out_key(json, "itunes_owner");
	json_out_begin_object(json);
	json_out_member_string(json, "name", name);
	json_out_member_string(json, "email", email);
	json_out_end_object(json);
}

static void
string_array(JsonOut *json, const char *const *strings)
{
	json_out_begin_array(json);
	for (; *strings != NULL; strings++)
		json_out_string(json, *strings);
	json_out_end_array(json);
}

static void
categories(JsonOut *json, const FeedChannel *channel)
{
	guint n = feed_channel_get_n_categories(channel);

	if (n == 0)
		return;
	json_out_key(json, "itunes_categories");
	json_out_begin_array(json);
	for (guint i = 0; i < n; i++)
		string_array(json, feed_channel_get_category(channel, i));
	json_out_end_array(json);
}

static void
funding(JsonOut *json, const FeedChannel *channel)
{
	guint n = feed_channel_get_n_funding(channel);

	if (n == 0)
		return;
	/* Like podcastparser, funding_url is the last one. */
	json_out_member_string(
	        json, "funding_url",
	        feed_funding_get_url(feed_channel_get_funding(channel, n - 1)));
	json_out_key(json, "funding");
	json_out_begin_array(json);
	for (guint i = 0; i < n; i++) {
		const FeedFunding *f = feed_channel_get_funding(channel, i);

		json_out_begin_object(json);
		json_out_key(json, "url");
		json_out_string(json, feed_funding_get_url(f));
		json_out_key(json, "text");
		json_out_string(json, feed_funding_get_text(f));
		json_out_end_object(json);
	}
	json_out_end_array(json);
}

static const char *
format_name(FeedFormat format)
{
	switch (format) {
	case FEED_FORMAT_ATOM:
		return "atom";
	case FEED_FORMAT_RSS1:
		return "rss1";
	default:
		return "rss2";
	}
}

static const char *
show_type(FeedShowType type)
{
	switch (type) {
	case FEED_SHOW_TYPE_EPISODIC:
		return "episodic";
	case FEED_SHOW_TYPE_SERIAL:
		return "serial";
	default:
		return NULL;
	}
}

void
feedtool_json_channel_members(JsonOut *json, const FeedChannel *channel)
{
	const char *const *keywords = feed_channel_get_keywords(channel);
	const char *const *errors = feed_channel_get_errors(channel);
	guint n_persons = feed_channel_get_n_persons(channel);

	json_out_key(json, "title");
	json_out_string(json, feed_channel_get_title(channel));
	json_out_member_string(json, "link", feed_channel_get_link(channel));
	json_out_member_string(json, "description",
	                       feed_channel_get_description(channel));
	json_out_member_string(json, "author",
	                       feed_channel_get_author(channel));
	json_out_member_string(json, "itunes_author",
	                       feed_channel_get_itunes_author(channel));
	owner(json, channel);
	json_out_member_string(json, "cover_url",
	                       feed_channel_get_image_url(channel));
	json_out_member_string(json, "language",
	                       feed_channel_get_language(channel));
	json_out_member_string(json, "new_url",
	                       feed_channel_get_new_url(channel));
	json_out_member_string(json, "type",
	                       show_type(feed_channel_get_show_type(channel)));
	member_tristate(json, "explicit", feed_channel_get_explicit(channel));
	member_tristate(json, "block", feed_channel_get_block(channel));
	if (feed_channel_is_complete(channel)) {
		json_out_key(json, "complete");
		json_out_bool(json, TRUE);
	}
	categories(json, channel);
	if (*keywords != NULL) {
		json_out_key(json, "itunes_keywords");
		string_array(json, keywords);
	}
	json_out_member_string(json, "generator",
	                       feed_channel_get_generator(channel));
	json_out_member_string(json, "payment_url",
	                       feed_channel_get_payment_url(channel));
	funding(json, channel);
	json_out_member_string(json, "paged_feed_first",
	                       feed_channel_get_first_page_url(channel));
	json_out_member_string(json, "paged_feed_next",
	                       feed_channel_get_next_page_url(channel));
	member_tristate(json, "import_prohibited",
	                feed_channel_get_locked(channel));
	json_out_member_string(json, "self_url",
	                       feed_channel_get_self_url(channel));
	json_out_member_string(json, "hub_url",
	                       feed_channel_get_hub_url(channel));
	json_out_member_string(json, "podcast_guid",
	                       feed_channel_get_podcast_guid(channel));
	json_out_member_string(json, "medium",
	                       feed_channel_get_medium(channel));
	json_out_member_string(json, "update_frequency_rrule",
	                       feed_channel_get_update_rrule(channel));
	if (feed_channel_get_ttl(channel) > 0)
		member_int(json, "ttl", feed_channel_get_ttl(channel));
	if (feed_channel_get_updated(channel) > 0)
		member_int(json, "updated", feed_channel_get_updated(channel));
	if (n_persons > 0) {
		json_out_key(json, "persons");
		json_out_begin_array(json);
		for (guint i = 0; i < n_persons; i++)
			person(json, feed_channel_get_person(channel, i));
		json_out_end_array(json);
	}
	json_out_member_string(json, "format",
	                       format_name(feed_channel_get_format(channel)));
	if (*errors != NULL) {
		json_out_key(json, "errors");
		string_array(json, errors);
	}
}
