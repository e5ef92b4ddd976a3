"""Food catalog: the whole of USDA SR Legacy, full-text search, own foods and recipes,
favourites, photo corrections.

- foods: names up to 200 characters (SR Legacy long descriptions); common_names (USDA ComName);
  search_weight (search prior); owner_id (a user's own food or recipe, private to them) and
  recipe_servings; dataset may be 'Composite' (USDA rows summed, e.g. a sandwich with its
  bread), 'Own food' or 'Recipe'; names unique among public foods and
  within each user's foods (was: unique overall).
- recipe_ingredients, favourite_foods, seed_versions (which seed parts are loaded).
- meal_entries: photo_sha256 and is_correction (the person chose another food than the model).
- SQLite only: foods_fts (FTS5 over name, aliases, common names, USDA description) and
  foods_fts_vocab (its terms, for typo correction). Other databases search with LIKE.
  The index is filled here from the foods present and kept current by db.fts.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_FTS_CREATE = (
    "CREATE VIRTUAL TABLE foods_fts USING fts5(name, aliases, common_names, description, "
    "tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3')"
)
_VOCAB_CREATE = "CREATE VIRTUAL TABLE foods_fts_vocab USING fts5vocab(foods_fts, 'row')"
_FTS_FILL = (
    "INSERT INTO foods_fts (rowid, name, aliases, common_names, description) "
    "SELECT f.id, f.name, coalesce((SELECT group_concat(a.alias, '; ') FROM food_aliases a "
    "WHERE a.food_id = f.id), ''), coalesce(f.common_names, ''), f.fdc_description FROM foods f"
)


def upgrade() -> None:
    with op.batch_alter_table('foods') as batch:
        batch.drop_constraint(op.f('ck_foods_fdc_dataset'), type_='check')
        batch.drop_constraint(op.f('ck_foods_source_id'), type_='check')
        batch.drop_constraint(op.f('uq_foods_name_key'), type_='unique')
        batch.alter_column('name', type_=sa.String(length=200), existing_nullable=False)
        batch.alter_column('name_key', type_=sa.String(length=200), existing_nullable=False)
        batch.add_column(sa.Column('owner_id', sa.Integer(), nullable=True))
        batch.add_column(sa.Column('common_names', sa.Text(), nullable=True))
        batch.add_column(sa.Column('search_weight', sa.Double(), nullable=False,
                                   server_default='0'))
        batch.add_column(sa.Column('recipe_servings', sa.Double(), nullable=True))
        batch.create_foreign_key(op.f('fk_foods_owner_id_users'), 'users', ['owner_id'], ['id'],
                                 ondelete='CASCADE')
        batch.create_check_constraint(
            op.f('ck_foods_fdc_dataset_v2'),
            "fdc_dataset IN ('SR Legacy', 'FNDDS', 'Foundation', 'Composite', 'Own food', "
            "'Recipe')",
        )
        batch.create_check_constraint(
            op.f('ck_foods_source_or_owner'),
            "fdc_id IS NOT NULL OR source_code IS NOT NULL OR owner_id IS NOT NULL "
            "OR fdc_dataset = 'Composite'",
        )
    # The server default only filled the existing rows; the ORM supplies the value from now on.
    with op.batch_alter_table('foods') as batch:
        batch.alter_column('search_weight', server_default=None, existing_type=sa.Double(),
                           existing_nullable=False)
    op.create_index(op.f('ix_foods_owner_id'), 'foods', ['owner_id'], unique=False)
    op.create_index('uq_foods_public_name', 'foods', ['name_key'], unique=True,
                    sqlite_where=sa.text('owner_id IS NULL'),
                    postgresql_where=sa.text('owner_id IS NULL'))
    op.create_index('uq_foods_owner_name', 'foods', ['owner_id', 'name_key'], unique=True)

    with op.batch_alter_table('meal_entries') as batch:
        batch.alter_column('food_name', type_=sa.String(length=200), existing_nullable=False)
        batch.add_column(sa.Column('photo_sha256', sa.String(length=64), nullable=True))
        batch.add_column(sa.Column('is_correction', sa.Boolean(), nullable=True))

    op.create_table('recipe_ingredients',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('recipe_id', sa.Integer(), nullable=False),
    sa.Column('food_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('grams', sa.Double(), nullable=False),
    sa.Column('food_name', sa.String(length=200), nullable=False),
    sa.CheckConstraint('grams > 0', name=op.f('ck_recipe_ingredients_grams_positive')),
    sa.ForeignKeyConstraint(['food_id'], ['foods.id'], name=op.f('fk_recipe_ingredients_food_id_foods'), ondelete='RESTRICT'),
    sa.ForeignKeyConstraint(['recipe_id'], ['foods.id'], name=op.f('fk_recipe_ingredients_recipe_id_foods'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_recipe_ingredients'))
    )
    op.create_index(op.f('ix_recipe_ingredients_food_id'), 'recipe_ingredients', ['food_id'], unique=False)
    op.create_index(op.f('ix_recipe_ingredients_recipe_id'), 'recipe_ingredients', ['recipe_id'], unique=False)
    op.create_table('favourite_foods',
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('food_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['food_id'], ['foods.id'], name=op.f('fk_favourite_foods_food_id_foods'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_favourite_foods_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('user_id', 'food_id', name=op.f('pk_favourite_foods'))
    )
    op.create_table('seed_versions',
    sa.Column('part', sa.String(length=40), nullable=False),
    sa.Column('foods', sa.Integer(), nullable=False),
    sa.Column('loaded_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('part', name=op.f('pk_seed_versions'))
    )
    # A database seeded before this revision has its curated foods already.
    op.execute("INSERT INTO seed_versions (part, foods, loaded_at) "
               "SELECT 'curated', count(*), CURRENT_TIMESTAMP FROM foods HAVING count(*) > 0")

    if op.get_bind().dialect.name == 'sqlite':
        op.execute(_FTS_CREATE)
        op.execute(_VOCAB_CREATE)
        op.execute(_FTS_FILL)


def downgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        op.execute('DROP TABLE foods_fts_vocab')
        op.execute('DROP TABLE foods_fts')
    op.drop_table('seed_versions')
    op.drop_table('favourite_foods')
    op.drop_index(op.f('ix_recipe_ingredients_recipe_id'), 'recipe_ingredients')
    op.drop_index(op.f('ix_recipe_ingredients_food_id'), 'recipe_ingredients')
    op.drop_table('recipe_ingredients')
    with op.batch_alter_table('meal_entries') as batch:
        batch.drop_column('is_correction')
        batch.drop_column('photo_sha256')
        batch.alter_column('food_name', type_=sa.String(length=120), existing_nullable=False)
    # Own foods and the SR Legacy catalog cannot live in the old schema: downgrading keeps
    # only what the old schema can hold (public foods whose names fit).
    op.execute("DELETE FROM foods WHERE owner_id IS NOT NULL")
    op.drop_index('uq_foods_owner_name', 'foods')
    op.drop_index('uq_foods_public_name', 'foods')
    op.drop_index(op.f('ix_foods_owner_id'), 'foods')
    with op.batch_alter_table('foods') as batch:
        batch.drop_constraint(op.f('ck_foods_source_or_owner'), type_='check')
        batch.drop_constraint(op.f('ck_foods_fdc_dataset_v2'), type_='check')
        batch.drop_constraint(op.f('fk_foods_owner_id_users'), type_='foreignkey')
        batch.drop_column('recipe_servings')
        batch.drop_column('search_weight')
        batch.drop_column('common_names')
        batch.drop_column('owner_id')
        batch.alter_column('name_key', type_=sa.String(length=120), existing_nullable=False)
        batch.alter_column('name', type_=sa.String(length=120), existing_nullable=False)
        batch.create_unique_constraint(op.f('uq_foods_name_key'), ['name_key'])
        batch.create_check_constraint(
            op.f('ck_foods_fdc_dataset'), "fdc_dataset IN ('SR Legacy', 'FNDDS', 'Foundation')")
        batch.create_check_constraint(
            op.f('ck_foods_source_id'), 'fdc_id IS NOT NULL OR source_code IS NOT NULL')
