#!/bin/sh
# The application role the server connects as: it owns nothing, so it can
# never switch the database's guards off (README, Database roles). The
# postgres image runs this once, when it makes the database.
set -eu
psql -v ON_ERROR_STOP=1 -v app_password="$KONTERA_APP_PASSWORD" \
	--username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<'SQL'
CREATE ROLE kontera_app LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'app_password';
SQL
