#include "episode-private.h"

FeedEpisode *
feed_episode_new(void)
{
	FeedEpisode *episode = g_new0(FeedEpisode, 1);

	g_atomic_ref_count_init(&episode->ref);
	episode->season = -1;
	episode->podcast_season = -1;
	return episode;
}

FeedEpisode *
feed_episode_ref(FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, NULL);
	g_atomic_ref_count_inc(&episode->ref);
	return episode;
}

void
feed_episode_unref(FeedEpisode *episode)
{
	if (episode == NULL || !g_atomic_ref_count_dec(&episode->ref))
		return;
	g_free(episode->guid);
	g_free(episode->title);
	g_free(episode->link);
	g_free(episode->description);
	g_free(episode->description_html);
	g_free(episode->payment_url);
	g_free(episode->subtitle);
	g_free(episode->itunes_author);
	g_free(episode->image_url);
	g_free(episode->chapters_url);
	g_clear_pointer(&episode->enclosures, g_ptr_array_unref);
	g_clear_pointer(&episode->alternates, g_ptr_array_unref);
	g_clear_pointer(&episode->chapters, g_ptr_array_unref);
	g_clear_pointer(&episode->transcripts, g_ptr_array_unref);
	g_clear_pointer(&episode->persons, g_ptr_array_unref);
	g_free(episode);
}

void
feed_ptr_array_add(GPtrArray **array, gpointer item, GDestroyNotify free_func)
{
	if (*array == NULL)
		*array = g_ptr_array_new_with_free_func(free_func);
	g_ptr_array_add(*array, item);
}

static guint
array_len(const GPtrArray *array)
{
	return array != NULL ? array->len : 0;
}

static gconstpointer
array_get(const GPtrArray *array, guint index)
{
	g_return_val_if_fail(index < array_len(array), NULL);
	return g_ptr_array_index(array, index);
}

const char *
feed_episode_get_guid(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, NULL);
	return episode->guid;
}

const char *
feed_episode_get_title(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, NULL);
	return episode->title;
}

const char *
feed_episode_get_link(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, NULL);
	return episode->link != NULL ? episode->link : "";
}

const char *
feed_episode_get_description(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, NULL);
	return episode->description != NULL ? episode->description : "";
}

const char *
feed_episode_get_description_html(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, NULL);
	return episode->description_html;
}

gint64
feed_episode_get_published(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, 0);
	return episode->published;
}

gint64
feed_episode_get_total_time(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, 0);
	return episode->total_time;
}

const char *
feed_episode_get_payment_url(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, NULL);
	return episode->payment_url;
}

guint
feed_episode_get_n_enclosures(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, 0);
	return array_len(episode->enclosures);
}

const FeedEnclosure *
feed_episode_get_enclosure(const FeedEpisode *episode, guint index)
{
	g_return_val_if_fail(episode != NULL, NULL);
	return array_get(episode->enclosures, index);
}

guint
feed_episode_get_n_alternate_enclosures(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, 0);
	return array_len(episode->alternates);
}

const FeedAlternateEnclosure *
feed_episode_get_alternate_enclosure(const FeedEpisode *episode, guint index)
{
	g_return_val_if_fail(episode != NULL, NULL);
	return array_get(episode->alternates, index);
}

gint64
feed_episode_get_number(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, 0);
	return episode->number;
}

gint64
feed_episode_get_season(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, -1);
	return episode->season;
}

gint64
feed_episode_get_podcast_episode(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, 0);
	return episode->podcast_episode;
}

gint64
feed_episode_get_podcast_season(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, -1);
	return episode->podcast_season;
}

FeedEpisodeType
feed_episode_get_episode_type(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, FEED_EPISODE_TYPE_UNSET);
	return episode->episode_type;
}

const char *
feed_episode_get_subtitle(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, NULL);
	return episode->subtitle;
}

const char *
feed_episode_get_itunes_author(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, NULL);
	return episode->itunes_author;
}

FeedTristate
feed_episode_get_explicit(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, FEED_TRISTATE_UNSET);
	return episode->explicit_;
}

FeedTristate
feed_episode_get_block(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, FEED_TRISTATE_UNSET);
	return episode->block;
}

const char *
feed_episode_get_image_url(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, NULL);
	return episode->image_url;
}

guint
feed_episode_get_n_chapters(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, 0);
	return array_len(episode->chapters);
}

const FeedChapter *
feed_episode_get_chapter(const FeedEpisode *episode, guint index)
{
	g_return_val_if_fail(episode != NULL, NULL);
	return array_get(episode->chapters, index);
}

const char *
feed_episode_get_chapters_url(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, NULL);
	return episode->chapters_url;
}

guint
feed_episode_get_n_transcripts(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, 0);
	return array_len(episode->transcripts);
}

const FeedTranscript *
feed_episode_get_transcript(const FeedEpisode *episode, guint index)
{
	g_return_val_if_fail(episode != NULL, NULL);
	return array_get(episode->transcripts, index);
}

guint
feed_episode_get_n_persons(const FeedEpisode *episode)
{
	g_return_val_if_fail(episode != NULL, 0);
	return array_len(episode->persons);
}

const FeedPerson *
feed_episode_get_person(const FeedEpisode *episode, guint index)
{
	g_return_val_if_fail(episode != NULL, NULL);
	return array_get(episode->persons, index);
}
