"""Personal dishes: a user's own dishes (a name and the food it is) learned from their photos,
and each photo's embeddings (models.dishes recognises the dish from them; no photo is stored).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0013'
down_revision: str | None = '0012'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('personal_dishes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('owner_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('name_key', sa.String(length=200), nullable=False),
    sa.Column('food_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['owner_id'], ['users.id'], name=op.f('fk_personal_dishes_owner_id_users'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['food_id'], ['foods.id'], name=op.f('fk_personal_dishes_food_id_foods'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_personal_dishes')),
    sa.UniqueConstraint('owner_id', 'name_key', name=op.f('uq_personal_dishes_owner_id_name_key'))
    )
    op.create_index(op.f('ix_personal_dishes_owner_id'), 'personal_dishes', ['owner_id'], unique=False)
    op.create_index(op.f('ix_personal_dishes_food_id'), 'personal_dishes', ['food_id'], unique=False)
    op.create_table('dish_examples',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('dish_id', sa.Integer(), nullable=False),
    sa.Column('space', sa.String(length=64), nullable=False),
    sa.Column('views', sa.Integer(), nullable=False),
    sa.Column('dim', sa.Integer(), nullable=False),
    sa.Column('vectors', sa.LargeBinary(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.CheckConstraint('views >= 1 AND views <= 64', name=op.f('ck_dish_examples_views_range')),
    sa.CheckConstraint('dim >= 1 AND dim <= 8192', name=op.f('ck_dish_examples_dim_range')),
    sa.ForeignKeyConstraint(['dish_id'], ['personal_dishes.id'], name=op.f('fk_dish_examples_dish_id_personal_dishes'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_dish_examples'))
    )
    op.create_index(op.f('ix_dish_examples_dish_id'), 'dish_examples', ['dish_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_dish_examples_dish_id'), table_name='dish_examples')
    op.drop_table('dish_examples')
    op.drop_index(op.f('ix_personal_dishes_food_id'), table_name='personal_dishes')
    op.drop_index(op.f('ix_personal_dishes_owner_id'), table_name='personal_dishes')
    op.drop_table('personal_dishes')
