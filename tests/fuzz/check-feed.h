/*
 * What a parsed feed promises whatever the document was: every getter
 * answers, every string is valid UTF-8, titles are never NULL where the
 * header says so. The two feed targets check each channel and episode.
 */
#ifndef FUZZ_CHECK_FEED_H
#define FUZZ_CHECK_FEED_H

#include "fuzz.h"

#include <feed/feed.h>

/* Where the fuzzed documents claim to come from. */
#define FUZZ_BASE_URL "http://example.com/feeds/show.rss"

/* A string the header says is never NULL. */
static inline void
fuzz_check_string(const char *what, const char *text)
{
	fuzz_check(text != NULL, "%s is NULL", what);
	fuzz_check_utf8(what, text);
}

static inline void
fuzz_check_strv(const char *what, const char *const *strv)
{
	fuzz_check(strv != NULL, "%s is NULL", what);
	for (guint i = 0; strv[i] != NULL; i++)
		fuzz_check_utf8(what, strv[i]);
}

static inline void
fuzz_check_person(const FeedPerson *person)
{
	fuzz_check(person != NULL, "a person is NULL");
	fuzz_check_string("person name", feed_person_get_name(person));
	fuzz_check_string("person role", feed_person_get_role(person));
	fuzz_check_string("person group", feed_person_get_group(person));
	fuzz_check_utf8("person href", feed_person_get_href(person));
	fuzz_check_utf8("person image", feed_person_get_image(person));
}

static inline void
fuzz_check_episode(const FeedEpisode *episode)
{
	const char *description = feed_episode_get_description(episode);
	const char *link = feed_episode_get_link(episode);

	fuzz_check_utf8("episode guid", feed_episode_get_guid(episode));
	fuzz_check_utf8("episode title", feed_episode_get_title(episode));
	fuzz_check_string("episode link", link);
	fuzz_check_string("episode description", description);
	fuzz_check_utf8("episode description_html",
	                feed_episode_get_description_html(episode));
	fuzz_check_utf8("episode payment url",
	                feed_episode_get_payment_url(episode));
	fuzz_check_utf8("episode subtitle", feed_episode_get_subtitle(episode));
	fuzz_check_utf8("episode itunes author",
	                feed_episode_get_itunes_author(episode));
	fuzz_check_utf8("episode image url",
	                feed_episode_get_image_url(episode));
	fuzz_check_utf8("episode chapters url",
	                feed_episode_get_chapters_url(episode));
	fuzz_check(feed_episode_get_total_time(episode) >= 0,
	           "episode total time is negative");
	(void)feed_episode_get_published(episode);
	(void)feed_episode_get_number(episode);
	(void)feed_episode_get_season(episode);
	(void)feed_episode_get_podcast_episode(episode);
	(void)feed_episode_get_podcast_season(episode);
	(void)feed_episode_get_episode_type(episode);
	(void)feed_episode_get_explicit(episode);
	(void)feed_episode_get_block(episode);

	for (guint i = 0; i < feed_episode_get_n_enclosures(episode); i++) {
		const FeedEnclosure *e = feed_episode_get_enclosure(episode, i);

		fuzz_check(e != NULL, "enclosure %u is NULL", i);
		fuzz_check_utf8("enclosure url", feed_enclosure_get_url(e));
		fuzz_check_string("enclosure type",
		                  feed_enclosure_get_mime_type(e));
		(void)feed_enclosure_get_file_size(e);
	}
	for (guint i = 0; i < feed_episode_get_n_alternate_enclosures(episode);
	     i++) {
		const FeedAlternateEnclosure *a =
		        feed_episode_get_alternate_enclosure(episode, i);

		fuzz_check(a != NULL, "alternate enclosure %u is NULL", i);
		fuzz_check_utf8("alternate type",
		                feed_alternate_enclosure_get_mime_type(a));
		fuzz_check_utf8("alternate title",
		                feed_alternate_enclosure_get_title(a));
		(void)feed_alternate_enclosure_get_file_size(a);
		(void)feed_alternate_enclosure_get_bitrate(a);
		(void)feed_alternate_enclosure_is_default(a);
		for (guint j = 0; j < feed_alternate_enclosure_get_n_sources(a);
		     j++)
			fuzz_check_utf8(
			        "alternate source",
			        feed_alternate_enclosure_get_source(a, j));
	}
	for (guint i = 0; i < feed_episode_get_n_chapters(episode); i++) {
		const FeedChapter *c = feed_episode_get_chapter(episode, i);

		fuzz_check(c != NULL, "chapter %u is NULL", i);
		fuzz_check_string("chapter title", feed_chapter_get_title(c));
		fuzz_check_utf8("chapter href", feed_chapter_get_href(c));
		fuzz_check_utf8("chapter image", feed_chapter_get_image(c));
		(void)feed_chapter_get_start(c);
	}
	for (guint i = 0; i < feed_episode_get_n_transcripts(episode); i++) {
		const FeedTranscript *t =
		        feed_episode_get_transcript(episode, i);

		fuzz_check(t != NULL, "transcript %u is NULL", i);
		fuzz_check_string("transcript url", feed_transcript_get_url(t));
		fuzz_check_utf8("transcript type",
		                feed_transcript_get_mime_type(t));
		fuzz_check_utf8("transcript language",
		                feed_transcript_get_language(t));
		fuzz_check_utf8("transcript rel", feed_transcript_get_rel(t));
	}
	for (guint i = 0; i < feed_episode_get_n_persons(episode); i++)
		fuzz_check_person(feed_episode_get_person(episode, i));
}

/* The channel's own fields; its episodes are checked one by one. */
static inline void
fuzz_check_channel(const FeedChannel *channel)
{
	const char *title = feed_channel_get_title(channel);

	fuzz_check_string("channel title", title);
	fuzz_check_utf8("channel link", feed_channel_get_link(channel));
	fuzz_check_utf8("channel description",
	                feed_channel_get_description(channel));
	fuzz_check_utf8("channel author", feed_channel_get_author(channel));
	fuzz_check_utf8("channel itunes author",
	                feed_channel_get_itunes_author(channel));
	fuzz_check_utf8("channel owner name",
	                feed_channel_get_owner_name(channel));
	fuzz_check_utf8("channel owner email",
	                feed_channel_get_owner_email(channel));
	fuzz_check_utf8("channel image url",
	                feed_channel_get_image_url(channel));
	fuzz_check_utf8("channel language", feed_channel_get_language(channel));
	fuzz_check_utf8("channel new url", feed_channel_get_new_url(channel));
	fuzz_check_utf8("channel generator",
	                feed_channel_get_generator(channel));
	fuzz_check_utf8("channel payment url",
	                feed_channel_get_payment_url(channel));
	fuzz_check_utf8("channel self url", feed_channel_get_self_url(channel));
	fuzz_check_utf8("channel hub url", feed_channel_get_hub_url(channel));
	fuzz_check_utf8("channel first page url",
	                feed_channel_get_first_page_url(channel));
	fuzz_check_utf8("channel next page url",
	                feed_channel_get_next_page_url(channel));
	fuzz_check_utf8("channel podcast guid",
	                feed_channel_get_podcast_guid(channel));
	fuzz_check_utf8("channel medium", feed_channel_get_medium(channel));
	fuzz_check_utf8("channel update rrule",
	                feed_channel_get_update_rrule(channel));
	fuzz_check_strv("channel keywords", feed_channel_get_keywords(channel));
	fuzz_check_strv("channel errors", feed_channel_get_errors(channel));
	(void)feed_channel_get_format(channel);
	(void)feed_channel_get_show_type(channel);
	(void)feed_channel_get_explicit(channel);
	(void)feed_channel_get_block(channel);
	(void)feed_channel_is_complete(channel);
	(void)feed_channel_get_locked(channel);
	(void)feed_channel_get_ttl(channel);
	(void)feed_channel_get_updated(channel);

	for (guint i = 0; i < feed_channel_get_n_categories(channel); i++) {
		const char *const *category =
		        feed_channel_get_category(channel, i);

		fuzz_check_strv("channel category", category);
		fuzz_check(category[0] != NULL, "channel category is empty");
	}
	for (guint i = 0; i < feed_channel_get_n_funding(channel); i++) {
		const FeedFunding *f = feed_channel_get_funding(channel, i);

		fuzz_check(f != NULL, "funding %u is NULL", i);
		fuzz_check_string("funding url", feed_funding_get_url(f));
		fuzz_check_string("funding text", feed_funding_get_text(f));
	}
	for (guint i = 0; i < feed_channel_get_n_persons(channel); i++)
		fuzz_check_person(feed_channel_get_person(channel, i));
}

/* A failure is a FeedError with a readable message, and nothing else. */
static inline void
fuzz_check_feed_error(const GError *error)
{
	fuzz_check(error != NULL, "failed without an error");
	fuzz_check(error->domain == FEED_ERROR, "error of domain %s",
	           g_quark_to_string(error->domain));
	fuzz_check_utf8("error message", error->message);
}

#endif
