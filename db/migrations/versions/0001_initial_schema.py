"""Initial schema: foods (USDA source, nutrients per 100 g), labels, aliases, servings,
glycemic index, users with settings, meal entries with frozen nutrient values.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('foods',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=120), nullable=False),
    sa.Column('name_key', sa.String(length=120), nullable=False),
    sa.Column('category', sa.String(length=60), nullable=False),
    sa.Column('fdc_dataset', sa.String(length=20), nullable=False),
    sa.Column('fdc_id', sa.Integer(), nullable=True),
    sa.Column('source_code', sa.String(length=20), nullable=True),
    sa.Column('fdc_description', sa.Text(), nullable=False),
    sa.Column('proxy_note', sa.Text(), nullable=True),
    sa.Column('energy_note', sa.Text(), nullable=True),
    sa.Column('kcal', sa.Double(), nullable=True),
    sa.Column('carbohydrate_g', sa.Double(), nullable=True),
    sa.Column('sugars_g', sa.Double(), nullable=True),
    sa.Column('fiber_g', sa.Double(), nullable=True),
    sa.Column('protein_g', sa.Double(), nullable=True),
    sa.Column('fat_g', sa.Double(), nullable=True),
    sa.Column('saturated_fat_g', sa.Double(), nullable=True),
    sa.Column('sodium_mg', sa.Double(), nullable=True),
    sa.CheckConstraint("fdc_dataset IN ('SR Legacy', 'FNDDS', 'Foundation')", name=op.f('ck_foods_fdc_dataset')),
    sa.CheckConstraint('fdc_id IS NULL OR fdc_id > 0', name=op.f('ck_foods_fdc_id_positive')),
    sa.CheckConstraint('fdc_id IS NOT NULL OR source_code IS NOT NULL', name=op.f('ck_foods_source_id')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_foods')),
    sa.UniqueConstraint('name_key', name=op.f('uq_foods_name_key'))
    )
    op.create_table('users',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=64), nullable=False),
    sa.Column('name_key', sa.String(length=64), nullable=False),
    sa.Column('password_hash', sa.String(length=255), nullable=True),
    sa.Column('daily_kcal_target', sa.Double(), nullable=False),
    sa.Column('daily_carb_target_g', sa.Double(), nullable=False),
    sa.Column('exchange_unit_g', sa.Double(), nullable=False),
    sa.Column('confidence_threshold', sa.Double(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.CheckConstraint('confidence_threshold >= 0 AND confidence_threshold <= 1', name=op.f('ck_users_confidence_threshold')),
    sa.CheckConstraint('exchange_unit_g IN (10, 12, 15)', name=op.f('ck_users_exchange_unit')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_users')),
    sa.UniqueConstraint('name_key', name=op.f('uq_users_name_key'))
    )
    op.create_table('food_aliases',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('food_id', sa.Integer(), nullable=False),
    sa.Column('alias', sa.String(length=120), nullable=False),
    sa.Column('alias_key', sa.String(length=120), nullable=False),
    sa.ForeignKeyConstraint(['food_id'], ['foods.id'], name=op.f('fk_food_aliases_food_id_foods'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_food_aliases')),
    sa.UniqueConstraint('alias_key', name=op.f('uq_food_aliases_alias_key'))
    )
    op.create_index(op.f('ix_food_aliases_food_id'), 'food_aliases', ['food_id'], unique=False)

    op.create_table('food_labels',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('food_id', sa.Integer(), nullable=False),
    sa.Column('label', sa.String(length=80), nullable=False),
    sa.ForeignKeyConstraint(['food_id'], ['foods.id'], name=op.f('fk_food_labels_food_id_foods'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_food_labels')),
    sa.UniqueConstraint('label', name=op.f('uq_food_labels_label'))
    )
    op.create_index(op.f('ix_food_labels_food_id'), 'food_labels', ['food_id'], unique=False)

    op.create_table('glycemic_index',
    sa.Column('food_id', sa.Integer(), nullable=False),
    sa.Column('gi', sa.Integer(), nullable=False),
    sa.Column('reference', sa.String(length=20), nullable=False),
    sa.Column('gi_source', sa.Text(), nullable=False),
    sa.CheckConstraint('gi >= 0 AND gi <= 150', name=op.f('ck_glycemic_index_gi_range')),
    sa.ForeignKeyConstraint(['food_id'], ['foods.id'], name=op.f('fk_glycemic_index_food_id_foods'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('food_id', name=op.f('pk_glycemic_index'))
    )
    op.create_table('meal_entries',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('eaten_at', sa.DateTime(), nullable=False),
    sa.Column('food_id', sa.Integer(), nullable=False),
    sa.Column('food_name', sa.String(length=120), nullable=False),
    sa.Column('grams', sa.Double(), nullable=False),
    sa.Column('serving', sa.String(length=80), nullable=True),
    sa.Column('meal_type', sa.String(length=40), nullable=False),
    sa.Column('note', sa.Text(), nullable=False),
    sa.Column('kcal', sa.Double(), nullable=True),
    sa.Column('carbohydrate_g', sa.Double(), nullable=True),
    sa.Column('available_carbohydrate_g', sa.Double(), nullable=True),
    sa.Column('sugars_g', sa.Double(), nullable=True),
    sa.Column('fiber_g', sa.Double(), nullable=True),
    sa.Column('protein_g', sa.Double(), nullable=True),
    sa.Column('fat_g', sa.Double(), nullable=True),
    sa.Column('saturated_fat_g', sa.Double(), nullable=True),
    sa.Column('sodium_mg', sa.Double(), nullable=True),
    sa.Column('glycemic_load', sa.Double(), nullable=True),
    sa.Column('predicted_label', sa.String(length=80), nullable=True),
    sa.Column('confidence', sa.Double(), nullable=True),
    sa.Column('model_version', sa.String(length=200), nullable=True),
    sa.Column('external_id', sa.String(length=200), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.CheckConstraint('confidence IS NULL OR (confidence >= 0 AND confidence <= 1)', name=op.f('ck_meal_entries_confidence_range')),
    sa.CheckConstraint('grams > 0', name=op.f('ck_meal_entries_grams_positive')),
    sa.ForeignKeyConstraint(['food_id'], ['foods.id'], name=op.f('fk_meal_entries_food_id_foods'), ondelete='RESTRICT'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_meal_entries_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_meal_entries')),
    sa.UniqueConstraint('user_id', 'external_id', name=op.f('uq_meal_entries_user_id_external_id'))
    )
    op.create_index(op.f('ix_meal_entries_food_id'), 'meal_entries', ['food_id'], unique=False)
    op.create_index('ix_meal_entries_user_eaten', 'meal_entries', ['user_id', 'eaten_at'], unique=False)

    op.create_table('servings',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('food_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=80), nullable=False),
    sa.Column('grams', sa.Double(), nullable=False),
    sa.Column('is_default', sa.Boolean(), nullable=False),
    sa.Column('source', sa.Text(), nullable=False),
    sa.CheckConstraint('grams > 0', name=op.f('ck_servings_grams_positive')),
    sa.ForeignKeyConstraint(['food_id'], ['foods.id'], name=op.f('fk_servings_food_id_foods'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_servings')),
    sa.UniqueConstraint('food_id', 'name', name=op.f('uq_servings_food_id_name'))
    )
    op.create_index(
        'uq_servings_default_per_food', 'servings', ['food_id'], unique=True,
        sqlite_where=sa.text('is_default = 1'), postgresql_where=sa.text('is_default'),
    )


def downgrade() -> None:
    # Dropping a table drops its indexes; the explicit drops keep this the mirror of upgrade.
    op.drop_index('uq_servings_default_per_food', 'servings')
    op.drop_table('servings')
    op.drop_index('ix_meal_entries_user_eaten', 'meal_entries')
    op.drop_index(op.f('ix_meal_entries_food_id'), 'meal_entries')
    op.drop_table('meal_entries')
    op.drop_table('glycemic_index')
    op.drop_index(op.f('ix_food_labels_food_id'), 'food_labels')
    op.drop_table('food_labels')
    op.drop_index(op.f('ix_food_aliases_food_id'), 'food_aliases')
    op.drop_table('food_aliases')
    op.drop_table('users')
    op.drop_table('foods')
