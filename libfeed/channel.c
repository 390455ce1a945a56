#include "channel-private.h"
#include "feed/error.h"
#include "feed/parser.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

FeedChannel *
feed_channel_new(void)
{
	FeedChannel *channel = g_new0(FeedChannel, 1);

	g_atomic_ref_count_init(&channel->ref);
	channel->categories =
	        g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
	channel->keywords = g_new0(char *, 1);
	channel->errors = g_ptr_array_new_null_terminated(0, g_free, TRUE);
	channel->episodes = g_ptr_array_new_with_free_func(
	        (GDestroyNotify)feed_episode_unref);
	return channel;
}

static void
keep_episode(FeedEpisode *episode, gpointer user_data)
{
	FeedChannel *channel = user_data;

	g_ptr_array_add(channel->episodes, feed_episode_ref(episode));
}

/* Moves the collected episodes into the channel the parser made. */
static FeedChannel *
finish_collecting(FeedParser *parser, FeedChannel *collector, GError **error)
{
	FeedChannel *channel = feed_parser_finish(parser, error);

	if (channel == NULL)
		return NULL;
	g_ptr_array_unref(channel->episodes);
	channel->episodes = g_ptr_array_ref(collector->episodes);
	return channel;
}

FeedChannel *
feed_channel_new_from_data(const char *data, gsize length, const char *base_url,
                           GError **error)
{
	g_autoptr(FeedChannel) collector = feed_channel_new();
	g_autoptr(FeedParser) parser = NULL;

	g_return_val_if_fail(data != NULL || length == 0, NULL);
	g_return_val_if_fail(error == NULL || *error == NULL, NULL);

	parser = feed_parser_new(base_url, keep_episode, collector);
	if (!feed_parser_feed(parser, data, length, error))
		return NULL;
	return finish_collecting(parser, collector, error);
}

FeedChannel *
feed_channel_new_from_file(const char *path, const char *base_url,
                           GError **error)
{
	g_autoptr(FeedChannel) collector = feed_channel_new();
	g_autoptr(FeedParser) parser = NULL;
	g_autofree char *file_url = NULL;
	g_autofree char *buffer = NULL;
	const gsize buffer_size = 64 * 1024;
	int fd;

	g_return_val_if_fail(path != NULL, NULL);
	g_return_val_if_fail(error == NULL || *error == NULL, NULL);

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int saved = errno;
		g_set_error(error, FEED_ERROR, FEED_ERROR_IO,
		            "cannot open %s: %s", path, g_strerror(saved));
		return NULL;
	}
	if (base_url == NULL)
		base_url = file_url = g_filename_to_uri(path, NULL, NULL);
	parser = feed_parser_new(base_url, keep_episode, collector);
	buffer = g_malloc(buffer_size);
	for (;;) {
		gssize n = read(fd, buffer, buffer_size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;
			g_set_error(error, FEED_ERROR, FEED_ERROR_IO,
			            "cannot read %s: %s", path,
			            g_strerror(saved));
			close(fd);
			return NULL;
		}
		if (n == 0)
			break;
		if (!feed_parser_feed(parser, buffer, n, error)) {
			close(fd);
			return NULL;
		}
	}
	close(fd);
	return finish_collecting(parser, collector, error);
}

FeedChannel *
feed_channel_ref(FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	g_atomic_ref_count_inc(&channel->ref);
	return channel;
}

void
feed_channel_unref(FeedChannel *channel)
{
	if (channel == NULL || !g_atomic_ref_count_dec(&channel->ref))
		return;
	g_free(channel->title);
	g_free(channel->link);
	g_free(channel->description);
	g_free(channel->itunes_summary);
	g_free(channel->author);
	g_free(channel->itunes_author);
	g_free(channel->atom_author);
	g_free(channel->managing_editor);
	g_free(channel->dc_creator);
	g_free(channel->owner_name);
	g_free(channel->owner_email);
	g_free(channel->image_url);
	g_free(channel->language);
	g_free(channel->dc_language);
	g_free(channel->new_url);
	g_ptr_array_unref(channel->categories);
	g_strfreev(channel->keywords);
	g_free(channel->generator);
	g_free(channel->payment_url);
	g_clear_pointer(&channel->funding, g_ptr_array_unref);
	g_clear_pointer(&channel->persons, g_ptr_array_unref);
	g_free(channel->self_url);
	g_free(channel->hub_url);
	g_free(channel->first_page_url);
	g_free(channel->next_page_url);
	g_free(channel->podcast_guid);
	g_free(channel->medium);
	g_free(channel->update_rrule);
	g_ptr_array_unref(channel->errors);
	g_ptr_array_unref(channel->episodes);
	g_free(channel);
}

FeedFormat
feed_channel_get_format(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, FEED_FORMAT_RSS2);
	return channel->format;
}

const char *
feed_channel_get_title(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->title != NULL ? channel->title : "";
}

const char *
feed_channel_get_link(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->link;
}

const char *
feed_channel_get_description(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->description != NULL ? channel->description
	                                    : channel->itunes_summary;
}

const char *
feed_channel_get_author(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->author;
}

const char *
feed_channel_get_itunes_author(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->itunes_author;
}

const char *
feed_channel_get_owner_name(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->owner_name;
}

const char *
feed_channel_get_owner_email(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->owner_email;
}

const char *
feed_channel_get_image_url(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->image_url;
}

const char *
feed_channel_get_language(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->language != NULL ? channel->language
	                                 : channel->dc_language;
}

const char *
feed_channel_get_new_url(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->new_url;
}

const char *
feed_channel_get_generator(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->generator;
}

const char *
feed_channel_get_payment_url(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->payment_url;
}

const char *
feed_channel_get_self_url(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->self_url;
}

const char *
feed_channel_get_hub_url(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->hub_url;
}

const char *
feed_channel_get_first_page_url(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->first_page_url;
}

const char *
feed_channel_get_next_page_url(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->next_page_url;
}

const char *
feed_channel_get_podcast_guid(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->podcast_guid;
}

const char *
feed_channel_get_medium(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->medium;
}

const char *
feed_channel_get_update_rrule(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return channel->update_rrule;
}

FeedShowType
feed_channel_get_show_type(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, FEED_SHOW_TYPE_UNSET);
	return channel->show_type;
}

FeedTristate
feed_channel_get_explicit(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, FEED_TRISTATE_UNSET);
	return channel->explicit_;
}

FeedTristate
feed_channel_get_block(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, FEED_TRISTATE_UNSET);
	return channel->block;
}

gboolean
feed_channel_is_complete(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, FALSE);
	return channel->complete;
}

FeedTristate
feed_channel_get_locked(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, FEED_TRISTATE_UNSET);
	return channel->locked;
}

guint
feed_channel_get_n_categories(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, 0);
	return channel->categories->len;
}

const char *const *
feed_channel_get_keywords(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, NULL);
	return (const char *const *)channel->keywords;
}

guint
feed_channel_get_n_funding(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, 0);
	return channel->funding != NULL ? channel->funding->len : 0;
}

guint
feed_channel_get_n_persons(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, 0);
	return channel->persons != NULL ? channel->persons->len : 0;
}

gint64
feed_channel_get_ttl(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, 0);
	return channel->ttl;
}

gint64
feed_channel_get_updated(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, 0);
	return channel->updated;
}

const char *const *
feed_channel_get_errors(const FeedChannel *channel)
{
	static const char *const none[] = { NULL };

	g_return_val_if_fail(channel != NULL, NULL);
	/* An empty GPtrArray may have no storage at all yet. */
	if (channel->errors->pdata == NULL)
		return none;
	return (const char *const *)channel->errors->pdata;
}

guint
feed_channel_get_n_episodes(const FeedChannel *channel)
{
	g_return_val_if_fail(channel != NULL, 0);
	return channel->episodes->len;
}

const char *const *
feed_channel_get_category(const FeedChannel *channel, guint index)
{
	g_return_val_if_fail(channel != NULL, NULL);
	g_return_val_if_fail(index < channel->categories->len, NULL);
	return g_ptr_array_index(channel->categories, index);
}

const FeedFunding *
feed_channel_get_funding(const FeedChannel *channel, guint index)
{
	g_return_val_if_fail(channel != NULL, NULL);
	g_return_val_if_fail(index < feed_channel_get_n_funding(channel), NULL);
	return g_ptr_array_index(channel->funding, index);
}

const FeedPerson *
feed_channel_get_person(const FeedChannel *channel, guint index)
{
	g_return_val_if_fail(channel != NULL, NULL);
	g_return_val_if_fail(index < feed_channel_get_n_persons(channel), NULL);
	return g_ptr_array_index(channel->persons, index);
}

FeedEpisode *
feed_channel_get_episode(const FeedChannel *channel, guint index)
{
	g_return_val_if_fail(channel != NULL, NULL);
	g_return_val_if_fail(index < channel->episodes->len, NULL);
	return g_ptr_array_index(channel->episodes, index);
}
