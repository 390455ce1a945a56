/* Layout of a channel; only the parser fills it. */
#ifndef FEED_CHANNEL_PRIVATE_H
#define FEED_CHANNEL_PRIVATE_H

#include "episode-private.h"
#include "feed/channel.h"

struct FeedChannel {
	gatomicrefcount ref;

	FeedFormat format;
	char *title;           /* never NULL once finished */
	char *link;            /* NULL when absent */
	char *description;     /* NULL when absent */
	char *itunes_summary;  /* fallback for description; NULL when absent */
	char *author;          /* derived at finish; NULL when absent */
	char *itunes_author;   /* NULL when absent */
	char *atom_author;     /* NULL when absent */
	char *managing_editor; /* NULL when absent */
	char *dc_creator;      /* NULL when absent */
	char *owner_name;      /* NULL when absent */
	char *owner_email;     /* NULL when absent */
	char *image_url;       /* NULL when absent */
	char *language;        /* NULL when absent */
	char *dc_language;     /* fallback for language; NULL when absent */
	char *new_url;         /* NULL when absent */
	FeedShowType show_type;
	FeedTristate explicit_;
	FeedTristate block;
	gboolean complete;
	FeedTristate locked;
	GPtrArray *categories; /* of char ** (strv); never NULL */
	char **keywords;       /* never NULL */
	char *generator;       /* NULL when absent */
	char *payment_url;     /* NULL when absent */
	GPtrArray *funding;    /* of FeedFunding; NULL while empty */
	GPtrArray *persons;    /* of FeedPerson; NULL while empty */
	char *self_url;        /* NULL when absent */
	char *hub_url;         /* NULL when absent */
	char *first_page_url;  /* NULL when absent */
	char *next_page_url;   /* NULL when absent */
	char *podcast_guid;    /* NULL when absent */
	char *medium;          /* NULL when absent */
	char *update_rrule;    /* NULL when absent */
	gint64 ttl;            /* minutes; 0 means absent */
	gint64 updated;        /* Unix seconds; 0 means absent */
	GPtrArray *errors;     /* of char *, NULL-terminated; never NULL */
	GPtrArray *episodes;   /* of FeedEpisode; never NULL */
};

G_GNUC_INTERNAL
FeedChannel *
feed_channel_new(void);

#endif
